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

// serveFlagFields are the config fields serve's flags set (serveFlags.apply
// and obsFlags.apply), so that a bad value given as a flag is reported
// under the flag's name.
var serveFlagFields = map[string]string{
	"listen":          "listen",
	"starknet-listen": "starknet_listen",
	"admin-listen":    "admin.listen",
	"data-dir":        "data_dir",
	"chain":           "node.chain_dir",
	"block-time":      "node.block_time",
	"upstream":        "upstream",
	"tls-cert":        "tls",
	"tls-key":         "tls",
	"tls-self-signed": "tls.self_signed",
	"metrics-listen":  "metrics.listen",
	"log-format":      "log.format",
	"log-level":       "log.level",
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
	for name, path := range serveFlagFields {
		if set[name] && (fe.Path == path || strings.HasPrefix(fe.Path, path+"[")) {
			return &flagFieldError{flag: name, err: fe}
		}
	}
	return err
}
