package config

import (
	"strings"
	"testing"
	"time"
)

func TestPlansFromYAML(t *testing.T) {
	cfg := Defaults()
	raw := []byte("plans:\n  team:\n    rate_per_second: 10\n  gold:\n    daily_credits: 5\n    failover: true\n    max_ws_connections: 7\n")
	if err := Decode(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plans := cfg.KeyPlans()
	if p := plans["team"]; p.RatePerSecond != 10 || p.DailyCredits != 0 || p.Failover || p.Name != "team" {
		t.Fatalf("team replaced whole: %+v", p)
	}
	if p := plans["gold"]; p.DailyCredits != 5 || !p.Failover || p.MaxWSConnections != 7 {
		t.Fatalf("gold = %+v", p)
	}
	if p := plans["core"]; p.RatePerSecond != 500 || p.Failover || p.MaxWSConnections != 50 {
		t.Fatalf("default core kept: %+v", p)
	}
	if !plans["enterprise"].Failover || plans["developer"].Failover {
		t.Fatal("failover is for team and enterprise only by default")
	}
}

// TestPlanConsumptionFields: the fields that bound what a request
// consumes reach keys.Plan, with their defaults where 0.
func TestPlanConsumptionFields(t *testing.T) {
	cfg := Defaults()
	raw := []byte("plans:\n  team:\n    max_response_bytes: 1000\n    max_in_flight: 3\n    call_timeout: 250ms\n")
	if err := Decode(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plans := cfg.KeyPlans()
	team := plans["team"]
	if team.AnswerBudget() != 1000 || team.MaxInFlight != 3 || team.ExecutionTimeout() != 250*time.Millisecond {
		t.Fatalf("team = %+v", team)
	}
	core := plans["core"]
	if core.AnswerBudget() != 25_000_000 || core.MaxInFlight != 4 || core.ExecutionTimeout() != time.Second {
		t.Fatalf("default core = %+v (budget %d)", core, core.AnswerBudget())
	}
	if e := plans["enterprise"]; e.AnswerBudget() != 25_000_000 || e.MaxInFlight != 0 || e.ExecutionTimeout() != 5*time.Second {
		t.Fatalf("default enterprise = %+v", e)
	}
}

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
