package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

// formValue is a flag whose parse error says the form the flag takes:
// the flag package alone says only "parse error".
type formValue struct {
	flag.Value
	name, form string
}

func (v formValue) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		return fmt.Errorf("%w: --%s takes %s", err, v.name, v.form)
	}
	return nil
}

// IsBoolFlag keeps --flag (without =true) working for a wrapped bool.
func (v formValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// formOf is the form a flag's value takes, by its type; empty for the
// values that cannot fail to parse (strings, lists).
func formOf(v flag.Value) string {
	g, ok := v.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "a duration with its unit, e.g. 500ms, 2s or 1m30s"
	case bool:
		return "true or false (or the flag alone for true)"
	case int, int64:
		return "a whole number, e.g. 7"
	case uint, uint64:
		return "a whole number of 0 or more, e.g. 7"
	case float64:
		return "a number, e.g. 2.5"
	}
	return ""
}

// explainForms makes every flag of fs that can fail to parse say its form.
func explainForms(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if form := formOf(f.Value); form != "" {
			f.Value = formValue{Value: f.Value, name: f.Name, form: form}
		}
	})
}

// flagField is one of serve's flags that sets a config field: the flag,
// the field's path (so that a bad value given as the flag is reported
// under the flag's name, nameFlag) and how the flag's value is put there.
type flagField struct {
	flag, path string
	set        func(cfg *config.Config, f *serveFlags)
}

// serveFlagFields are the config fields serve's flags set: the one mapping
// of a flag onto the configuration (serveFlags.apply, nameFlag).
var serveFlagFields = []flagField{
	{"listen", "listen", func(c *config.Config, f *serveFlags) { c.Listen = f.listen }},
	{"starknet-listen", "starknet_listen", func(c *config.Config, f *serveFlags) { c.StarknetListen = f.starknetListen }},
	{"admin-listen", "admin.listen", func(c *config.Config, f *serveFlags) { c.Admin.Listen = f.adminListen }},
	{"data-dir", "data_dir", func(c *config.Config, f *serveFlags) { c.DataDir = f.dataDir }},
	{"chain", "node.chain_dir", func(c *config.Config, f *serveFlags) { c.Node.ChainDir = f.chain }},
	{"block-time", "node.block_time", func(c *config.Config, f *serveFlags) { c.Node.BlockTime = f.blockTime }},
	{"upstream", "upstream", func(c *config.Config, f *serveFlags) { c.Upstream = f.upstream }},
	{"tls-cert", "tls", func(c *config.Config, f *serveFlags) { c.TLS.Cert = f.tlsCert }},
	{"tls-key", "tls", func(c *config.Config, f *serveFlags) { c.TLS.Key = f.tlsKey }},
	{"tls-self-signed", "tls.self_signed", func(c *config.Config, f *serveFlags) { c.TLS.SelfSigned = f.tlsSelfSigned }},
	{"metrics-listen", "metrics.listen", func(c *config.Config, f *serveFlags) { c.Metrics.Listen = f.obs.metricsListen }},
	{"log-format", "log.format", func(c *config.Config, f *serveFlags) { c.Log.Format = f.obs.logFormat }},
	{"log-level", "log.level", func(c *config.Config, f *serveFlags) { c.Log.Level = f.obs.logLevel }},
	{"access-log", "log.access", func(c *config.Config, f *serveFlags) { c.Log.Access = f.obs.accessLog }},
}

// flagFieldError is a config field's error where a flag gave the value.
type flagFieldError struct {
	flag string
	err  *config.FieldError
}

func (e *flagFieldError) Error() string {
	return "--" + e.flag + " (config " + e.err.Path + "): " + e.err.Msg
}

func (e *flagFieldError) Unwrap() error { return e.err }

// nameFlags rewrites the field errors of err whose value came from a flag
// given on the command line (set) to name that flag.
func nameFlags(err error, set map[string]bool) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		out = append(out, nameFlag(e, set))
	}
	return errors.Join(out...)
}

func nameFlag(err error, set map[string]bool) error {
	var fe *config.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	for _, ff := range serveFlagFields {
		if set[ff.flag] && (fe.Path == ff.path || strings.HasPrefix(fe.Path, ff.path+"[")) {
			return &flagFieldError{flag: ff.flag, err: fe}
		}
	}
	return err
}
