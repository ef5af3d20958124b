package config

import (
	"strings"
	"testing"
	"time"
)

// TestValidateHedge: each hedge field out of its range is refused, naming
// the field; the defaults and values in range pass.
func TestValidateHedge(t *testing.T) {
	tests := []struct {
		name    string
		hedge   Hedge
		wantErr string // substring; "" means valid
	}{
		{"defaults", Hedge{}, ""},
		{"in range", Hedge{Quantile: 0.9, MinDelay: time.Millisecond, MaxShare: 0.05, Burst: 3, ExecutionShare: 0.25}, ""},
		{"quantile of 1", Hedge{Quantile: 1}, "networks[0].pool.hedge.quantile"},
		{"negative min_delay", Hedge{MinDelay: -time.Second}, "networks[0].pool.hedge.min_delay"},
		{"max_share over 1", Hedge{MaxShare: 1.5}, "networks[0].pool.hedge.max_share"},
		{"negative burst", Hedge{Burst: -1}, "networks[0].pool.hedge.burst"},
		{"execution_share over 1", Hedge{ExecutionShare: 2}, "networks[0].pool.hedge.execution_share"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.Networks = []Network{{Name: "a", Upstreams: []Upstream{{URL: "embedded"}}, Pool: Pool{Hedge: tc.hedge}}}
			err := c.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestHedgeOn: hedging is on unless enabled is false.
func TestHedgeOn(t *testing.T) {
	off, on := false, true
	for name, tc := range map[string]struct {
		enabled *bool
		want    bool
	}{"unset": {nil, true}, "true": {&on, true}, "false": {&off, false}} {
		t.Run(name, func(t *testing.T) {
			if got := (Hedge{Enabled: tc.enabled}).On(); got != tc.want {
				t.Fatalf("On() = %v, want %v", got, tc.want)
			}
		})
	}
}
