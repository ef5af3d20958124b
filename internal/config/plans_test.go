package config

import (
	"strings"
	"testing"
)

func TestValidateKeysFields(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"bad database url", func(c *Config) { c.DatabaseURL = "mysql://x" }, "database_url"},
		{"no team plan", func(c *Config) { delete(c.Plans, "team") }, "plans: must define \"team\""},
		{"negative rate", func(c *Config) { c.Plans["x"] = Plan{RatePerSecond: -1} }, "plans.x.rate_per_second"},
		{"negative ws connections", func(c *Config) { c.Plans["x"] = Plan{MaxWSConnections: -1} }, "plans.x.max_ws_connections"},
		{"bad plan name", func(c *Config) { c.Plans["Big Plan"] = Plan{} }, "plans.Big Plan"},
		{"bad admin listen", func(c *Config) { c.Admin.Listen = "nope" }, "admin.listen"},
		{"short token", func(c *Config) { c.Admin.Token = "short" }, "admin.token"},
		{"zero refresh", func(c *Config) { c.KeyRefresh = 0 }, "key_refresh"},
		{"negative answer budget", func(c *Config) { c.Plans["x"] = Plan{MaxResponseBytes: -1} }, "plans.x.max_response_bytes"},
		{"negative calls in flight", func(c *Config) { c.Plans["x"] = Plan{MaxInFlight: -1} }, "plans.x.max_in_flight"},
		{"negative call timeout", func(c *Config) { c.Plans["x"] = Plan{CallTimeout: -1} }, "plans.x.call_timeout"},
		{"negative write timeout", func(c *Config) { c.Limits.WriteTimeout = -1 }, "limits.write_timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	ok := Defaults()
	ok.DatabaseURL = "postgres://u@127.0.0.1:5432/test"
	ok.Admin.Listen = ""
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestAdminTokenFromEnv(t *testing.T) {
	t.Setenv(AdminTokenEnv, "from-the-environment")
	c := Defaults()
	if c.AdminToken() != "from-the-environment" {
		t.Fatal("env fallback")
	}
	c.Admin.Token = "from-the-config-file"
	if c.AdminToken() != "from-the-config-file" {
		t.Fatal("config wins")
	}
}
