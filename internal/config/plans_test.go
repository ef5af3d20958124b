package config

import (
	"strings"
	"testing"
	"time"
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

func TestPlansFromYAML(t *testing.T) {
	cfg := Defaults()
	raw := []byte("plans:\n  team:\n    rate_per_second: 10\n  gold:\n    daily_credits: 5\n    failover: true\n    max_ws_connections: 7\n")
	if err := Decode(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plans := cfg.PlanSet()
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
// consumes reach the plan set, with their defaults where 0.
func TestPlanConsumptionFields(t *testing.T) {
	cfg := Defaults()
	raw := []byte("plans:\n  team:\n    max_response_bytes: 1000\n    max_in_flight: 3\n    call_timeout: 250ms\n")
	if err := Decode(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plans := cfg.PlanSet()
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

// TestPlanMethodLimits: a plan sets its own eth_getLogs and gas-cap limits
// (plans.<name>.get_logs_max_results, …); limits.plans, the older
// spelling, is folded into the plan it names; both setting one field to
// different values, or limits.plans naming no plan, is an error.
func TestPlanMethodLimits(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       map[string]methodLimitsWant
		err        string
	}{
		{"on the plan", "plans:\n  team:\n    get_logs_max_results: 5\n    gas_cap_factor: 2\n",
			map[string]methodLimitsWant{"team": {5, 0, 0, 2}, "core": {}}, ""},
		{"older spelling folded in", "limits:\n  plans:\n    developer:\n      get_logs_timeout: 3s\n",
			map[string]methodLimitsWant{"developer": {0, 0, 3 * time.Second, 0}, "team": {}}, ""},
		{"both, agreeing", "plans:\n  gold:\n    gas_cap_factor: 4\nlimits:\n  plans:\n    gold:\n      gas_cap_factor: 4\n      get_logs_max_params: 9\n",
			map[string]methodLimitsWant{"gold": {0, 9, 0, 4}}, ""},
		{"both, differing", "plans:\n  gold:\n    gas_cap_factor: 4\nlimits:\n  plans:\n    gold:\n      gas_cap_factor: 5\n", nil, "limits.plans.gold.gas_cap_factor"},
		{"no such plan", "limits:\n  plans:\n    gould:\n      gas_cap_factor: 5\n", nil, `limits.plans.gould: plan "gould" is not configured`},
		{"negative on the plan", "plans:\n  team:\n    get_logs_max_params: -1\n", nil, "plans.team.get_logs_max_params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			err := Decode([]byte(tc.yaml), &cfg)
			if err == nil {
				err = cfg.Validate()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			set := cfg.PlanSet()
			for name, w := range tc.want {
				p := set[name]
				got := methodLimitsWant{p.GetLogsMaxResults, p.GetLogsMaxParams, p.GetLogsTimeout, p.GasCapFactor}
				if p.Name != name || got != w {
					t.Errorf("%s: %q %+v, want %+v", name, p.Name, got, w)
				}
			}
		})
	}
}

// methodLimitsWant is a plan's method limits in the order of limits:.
type methodLimitsWant struct {
	Results, Params int
	Timeout         time.Duration
	Factor          int
}
