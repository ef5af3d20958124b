package config

import (
	"os"
	"time"
)

// TLS makes the client listener serve HTTPS and WSS. Either Cert and Key
// (PEM files, reloaded on SIGHUP and when they change), or SelfSigned.
type TLS struct {
	// Cert and Key are PEM files: the certificate chain and its private key.
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
	// SelfSigned serves a certificate for 127.0.0.1, ::1, localhost and
	// starknet.localhost issued at each start by a local CA kept in
	// <data_dir>/tls (local use only; the banner prints how to trust it).
	SelfSigned bool `yaml:"self_signed"`
	// ReloadCheck is how often the files are checked for a change (default 5s).
	ReloadCheck time.Duration `yaml:"reload_check"`
}

// Enabled reports whether the listener serves TLS.
func (t TLS) Enabled() bool { return t.SelfSigned || t.Cert != "" || t.Key != "" }

func (t *TLS) validate(bad func(path, format string, a ...any)) {
	switch {
	case t.SelfSigned && (t.Cert != "" || t.Key != ""):
		bad("tls.self_signed", "cannot be used with tls.cert/tls.key")
	case (t.Cert == "") != (t.Key == ""):
		bad("tls", "cert and key must be given together")
	}
	for path, f := range map[string]string{"tls.cert": t.Cert, "tls.key": t.Key} {
		if f == "" {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			bad(path, "cannot read %s: %v", f, err)
		}
	}
	if t.ReloadCheck < 0 {
		bad("tls.reload_check", "must not be negative")
	}
}
