package main

import (
	"flag"
	"reflect"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestServeFlagsMappedOnce: every flag of serve that sets a config field
// has exactly one entry in serveFlagFields, and applying it changes the
// configuration (the one mapping apply and the error naming read).
func TestServeFlagsMappedOnce(t *testing.T) {
	f := &serveFlags{}
	fs := newFlagSet("serve")
	f.register(fs)
	f.obs.register(fs)
	notFields := map[string]bool{"config": true, "api-key": true} // the file itself; appended keys
	entries := map[string]int{}
	for _, ff := range serveFlagFields {
		entries[ff.flag]++
	}
	fs.VisitAll(func(fl *flag.Flag) {
		if notFields[fl.Name] {
			return
		}
		t.Run(fl.Name, func(t *testing.T) {
			if entries[fl.Name] != 1 {
				t.Fatalf("%d entries in serveFlagFields, want 1", entries[fl.Name])
			}
			value := map[string]string{"block-time": "3s", "tls-self-signed": "true", "access-log": "true"}[fl.Name]
			if value == "" {
				value = "127.0.0.1:1"
			}
			if err := fl.Value.Set(value); err != nil {
				t.Fatal(err)
			}
			cfg := config.Defaults()
			f.apply(&cfg, map[string]bool{fl.Name: true})
			if reflect.DeepEqual(cfg, config.Defaults()) {
				t.Fatalf("--%s=%s changed nothing in the configuration", fl.Name, value)
			}
		})
		delete(entries, fl.Name)
	})
	for name := range entries {
		t.Errorf("serveFlagFields maps %q, which is no flag of serve", name)
	}
}
