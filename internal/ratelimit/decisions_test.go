package ratelimit

import (
	"context"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestDecisionsOneSeries: every request the meter decides is counted once
// in nodegate_ratelimit_decisions_total, admitted (a key without limits
// too) or refused by the rate or the daily credits.
func TestDecisionsOneSeries(t *testing.T) {
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	lim, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &Meter{Limiter: lim, Costs: NewCosts(nil)}
	ctx := context.Background()
	m.Admit(ctx, keyOn(t, 0, 0), n, calls("eth_call"), 0)  // unlimited: admitted
	m.Admit(ctx, keyOn(t, 80, 0), n, calls("eth_call"), 0) // 80 of 80/s: admitted
	m.Admit(ctx, keyOn(t, 80, 0), n, calls("eth_call"), 0) // rate
	lim2, _ := New(Options{})
	m2 := &Meter{Limiter: lim2, Costs: NewCosts(nil)}
	m2.Admit(ctx, keyOn(t, 0, 80), n, calls("eth_call"), 0)
	m2.Admit(ctx, keyOn(t, 0, 80), n, calls("eth_call"), 0) // daily
	cases := []struct {
		name, decision string
		lim            *Limiter
		want           float64
	}{
		{"admitted", "admitted", lim, 2},
		{"over the rate", "rate", lim, 1},
		{"over the daily credits", "daily", lim2, 1},
		{"admitted on daily", "admitted", lim2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got dto.Metric
			if err := tc.lim.metrics.decisions.WithLabelValues("mainnet", tc.decision).Write(&got); err != nil || got.GetCounter().GetValue() != tc.want {
				t.Fatalf("%s = %v (%v), want %v", tc.decision, got.GetCounter().GetValue(), err, tc.want)
			}
		})
	}
}

// TestErrorKindFollowsClassify: the usage records' error kinds are the
// outcome classes of the one classifier (unauthorized as forbidden).
func TestErrorKindFollowsClassify(t *testing.T) {
	cases := []struct {
		name string
		err  *jsonrpc.Error
		want string
	}{
		{"result", nil, ""},
		{"rate", &jsonrpc.Error{Code: -32005, Status: 429}, "rate_limited"},
		{"invalid params", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams}, "invalid"},
		{"unknown method", &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}, "invalid"},
		{"key refused", &jsonrpc.Error{Code: jsonrpc.CodeUnauthorized}, "forbidden"},
		{"forbidden status", &jsonrpc.Error{Code: jsonrpc.CodeUnauthorized, Status: 403}, "forbidden"},
		{"limit", &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded}, "limit"},
		{"upstream", &jsonrpc.Error{Code: -32603, Status: 503}, "upstream"},
		{"node", &jsonrpc.Error{Code: 3}, "node"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := errorKind(&jsonrpc.Response{Err: tc.err})
			got := map[string]int64{"rate_limited": e.RateLimited, "invalid": e.Invalid, "forbidden": e.Forbidden, "limit": e.Limit, "upstream": e.Upstream, "node": e.Node}
			for kind, v := range got {
				if want := int64(0); kind == tc.want {
					want = 1
					if v != want {
						t.Fatalf("%s = %d, want 1", kind, v)
					}
				} else if v != 0 {
					t.Fatalf("%s = %d, want 0 (want %q)", kind, v, tc.want)
				}
			}
		})
	}
}
