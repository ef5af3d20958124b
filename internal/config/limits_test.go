package config

import (
	"strings"
	"testing"
	"time"
)

func TestMethodLimitsDecode(t *testing.T) {
	cfg := Defaults()
	raw := `
limits:
  max_batch: 10
  get_logs_max_results: 20000
  get_logs_timeout: 5s
  plans:
    developer:
      get_logs_max_results: 1000
      gas_cap_factor: 2
`
	if err := Decode([]byte(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.MaxBatch != 10 || cfg.Limits.GetLogsMaxResults != 20000 || cfg.Limits.GetLogsTimeout != 5*time.Second {
		t.Fatalf("got %+v", cfg.Limits)
	}
	if d := cfg.Limits.Plans["developer"]; d.GetLogsMaxResults != 1000 || d.GasCapFactor != 2 || d.GetLogsTimeout != 0 {
		t.Fatalf("plan: %+v", d)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestMethodLimitsValidate(t *testing.T) {
	tests := []struct {
		name, yaml, path string
	}{
		{"negative results", "limits: {get_logs_max_results: -1}", "limits.get_logs_max_results"},
		{"negative params", "limits: {get_logs_max_params: -5}", "limits.get_logs_max_params"},
		{"negative timeout", "limits: {get_logs_timeout: -1s}", "limits.get_logs_timeout"},
		{"bad plan value", "limits: {plans: {team: {get_logs_timeout: -2s}}}", "limits.plans.team.get_logs_timeout"},
		{"unknown field in a plan", "limits: {plans: {team: {max_batch: 3}}}", "max_batch"},
		{"negative factor", "limits: {gas_cap_factor: -1}", "limits.gas_cap_factor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			err := Decode([]byte(tc.yaml), &cfg)
			if err == nil {
				err = cfg.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("got %v, want an error naming %s", err, tc.path)
			}
		})
	}
}

func TestConnectionsBudget(t *testing.T) {
	tests := []struct {
		name    string
		reserve int
		nofile  uint64
		want    int
	}{
		{"default reserve", 0, 20_000, 20_000 - DefaultDescriptorReserve},
		{"own reserve", 500, 20_000, 19_500},
		{"no reserve, no bound", -1, 20_000, 0},
		{"limit unknown", 0, 0, 0},
		{"small limit keeps three quarters", 0, 1024, 768},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Connections{DescriptorReserve: tt.reserve}).Budget(tt.nofile); got != tt.want {
				t.Fatalf("Budget(%d) = %d, want %d", tt.nofile, got, tt.want)
			}
		})
	}
}
