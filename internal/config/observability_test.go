package config

import (
	"strings"
	"testing"
)

func TestValidateObservability(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // "" = valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"json debug", func(c *Config) { c.Log.Format, c.Log.Level = "json", "debug" }, ""},
		{"metrics listener", func(c *Config) { c.Metrics.Listen = "127.0.0.1:9100" }, ""},
		{"bad format", func(c *Config) { c.Log.Format = "xml" }, "log.format"},
		{"bad level", func(c *Config) { c.Log.Level = "loud" }, "log.level"},
		{"bad metrics listener", func(c *Config) { c.Metrics.Listen = "9100" }, "metrics.listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			tc.edit(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestDecodeObservability(t *testing.T) {
	var c Config
	if err := Decode([]byte("metrics: {listen: '127.0.0.1:9100'}\nlog: {format: json, level: warn, access: true}\n"), &c); err != nil {
		t.Fatal(err)
	}
	if c.Metrics.Listen != "127.0.0.1:9100" || c.Log.Format != "json" || c.Log.Level != "warn" || !c.Log.Access {
		t.Fatalf("decoded %+v %+v", c.Metrics, c.Log)
	}
}
