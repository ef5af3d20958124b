package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStoredFormUnchanged: a plan that sets no method limits is written
// to the key store byte for byte as before the plan carried them, so a
// store shared with older replicas reads the same; one that sets them
// round-trips.
func TestStoredFormUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		plan Plan
		want string
	}{
		{"default core", Plan{Name: "core", RatePerSecond: 500, DailyCredits: 3_000_000, MaxInFlight: 4, CallTimeout: time.Second, MaxWSConnections: 50, MaxSubscriptions: 100},
			`{"name":"core","rate_per_second":500,"daily_credits":3000000,"failover":false,"max_response_bytes":0,"max_in_flight":4,"call_timeout":1000000000,"max_ws_connections":50,"max_subscriptions":100}`},
		{"with a connection bound", Plan{Name: "c", MaxConnections: 7},
			`{"name":"c","rate_per_second":0,"daily_credits":0,"failover":false,"max_response_bytes":0,"max_in_flight":0,"call_timeout":0,"max_ws_connections":0,"max_subscriptions":0,"max_connections":7}`},
		{"with method limits", Plan{Name: "gold", Failover: true, MethodLimits: MethodLimits{GetLogsMaxResults: 5, GetLogsTimeout: time.Second, GasCapFactor: 2}},
			`{"name":"gold","rate_per_second":0,"daily_credits":0,"failover":true,"max_response_bytes":0,"max_in_flight":0,"call_timeout":0,"max_ws_connections":0,"max_subscriptions":0,"get_logs_max_results":5,"get_logs_timeout":1000000000,"gas_cap_factor":2}`},
		{"with a subscription filter budget", Plan{Name: "s", MaxSubscriptionParams: 50},
			`{"name":"s","rate_per_second":0,"daily_credits":0,"failover":false,"max_response_bytes":0,"max_in_flight":0,"call_timeout":0,"max_ws_connections":0,"max_subscriptions":0,"max_subscription_params":50}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.plan)
			if err != nil || string(raw) != tc.want {
				t.Fatalf("stored as %s (%v), want %s", raw, err, tc.want)
			}
			var back Plan
			if err := json.Unmarshal(raw, &back); err != nil || back != tc.plan {
				t.Fatalf("read back %+v (%v), want %+v", back, err, tc.plan)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		plan    Plan
		budget  int64
		timeout time.Duration
	}{
		{"unset", Plan{}, 25_000_000, 5 * time.Second},
		{"set", Plan{MaxResponseBytes: 1000, CallTimeout: 250 * time.Millisecond}, 1000, 250 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if b, d := tc.plan.AnswerBudget(), tc.plan.ExecutionTimeout(); b != tc.budget || d != tc.timeout {
				t.Fatalf("budget %d timeout %s, want %d %s", b, d, tc.budget, tc.timeout)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		plan Plan
		want []string
	}{
		{"zero is valid", Plan{}, nil},
		{"every negative named", Plan{RatePerSecond: -1, DailyCredits: -1, MaxResponseBytes: -1, MaxInFlight: -1, CallTimeout: -1, MaxWSConnections: -1, MaxSubscriptions: -1, MaxConnections: -1,
			MethodLimits: MethodLimits{GetLogsMaxResults: -1, GetLogsMaxParams: -1, GetLogsTimeout: -1, GasCapFactor: -1}},
			[]string{"rate_per_second", "daily_credits", "max_response_bytes", "max_in_flight", "call_timeout", "max_ws_connections", "max_subscriptions", "max_connections",
				"get_logs_max_results", "get_logs_max_params", "gas_cap_factor", "get_logs_timeout"}},
		{"one method limit", Plan{MethodLimits: MethodLimits{GasCapFactor: -3}}, []string{"gas_cap_factor"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tc.plan.Validate("plans.x", func(path, format string, a ...any) {
				if !strings.HasPrefix(path, "plans.x.") || fmt.Sprintf(format, a...) == "" {
					t.Errorf("bad report %q %q", path, format)
				}
				got = append(got, strings.TrimPrefix(path, "plans.x."))
			})
			if !slices.Equal(got, tc.want) {
				t.Fatalf("reported %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOverAndConflicts(t *testing.T) {
	t.Parallel()
	base := MethodLimits{GetLogsMaxResults: 10, GetLogsMaxParams: 20, GetLogsTimeout: time.Second, GasCapFactor: 3}
	tests := []struct {
		name      string
		own       MethodLimits
		over      MethodLimits
		conflicts []string
	}{
		{"nothing set inherits all", MethodLimits{}, base, nil},
		{"own fields win", MethodLimits{GetLogsMaxResults: 5, GasCapFactor: 3}, MethodLimits{5, 20, time.Second, 3}, []string{"get_logs_max_results"}},
		{"every field differs", MethodLimits{1, 2, 3, 4}, MethodLimits{1, 2, 3, 4}, []string{"get_logs_max_results", "get_logs_max_params", "get_logs_timeout", "gas_cap_factor"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.own.Over(base); got != tc.over {
				t.Errorf("over: %+v, want %+v", got, tc.over)
			}
			if got := tc.own.Conflicts(base); !slices.Equal(got, tc.conflicts) {
				t.Errorf("conflicts: %v, want %v", got, tc.conflicts)
			}
		})
	}
}
