package keyconfig

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

func TestPlansFromYAML(t *testing.T) {
	cfg := config.Defaults()
	raw := []byte("plans:\n  team:\n    rate_per_second: 10\n  gold:\n    daily_credits: 5\n    failover: true\n    max_ws_connections: 7\n")
	if err := config.Decode(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plans := Plans(&cfg)
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
	cfg := config.Defaults()
	raw := []byte("plans:\n  team:\n    max_response_bytes: 1000\n    max_in_flight: 3\n    call_timeout: 250ms\n")
	if err := config.Decode(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plans := Plans(&cfg)
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
