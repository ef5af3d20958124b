package ingress

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestRateMeterPricesPipelineCalls: the adapter hands the meter plain
// values and the credits it priced reach the pipeline's calls, for a
// request of one call and for a batch longer than the copies kept on the
// stack; a refusal is the meter's.
func TestRateMeterPricesPipelineCalls(t *testing.T) {
	const key = "0123456789abcdef0123456789abcdef"
	plans := map[string]keys.Plan{"p": {Name: "p", RatePerSecond: 1000}}
	cache, err := keys.NewCache(context.Background(), nil, plans, "p", []string{key}, keys.CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := cache.Lookup(key)
	n := &pipeline.Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	callsOf := func(ms ...string) []*pipeline.Call {
		out := make([]*pipeline.Call, len(ms))
		for i, m := range ms {
			out[i] = &pipeline.Call{Req: jsonrpc.Request{Method: m}, Network: n}
		}
		return out
	}
	batch := make([]string, 0, 2*meterBatch)
	for range meterBatch {
		batch = append(batch, "eth_chainId", "eth_call")
	}
	cases := []struct {
		name        string
		methods     []string
		wantCredits []int64
	}{
		{"one call", []string{"eth_call"}, []int64{80}},
		{"batch beyond the stack copies", batch, nil},
	}
	lim, err := ratelimit.New(ratelimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := RateMeter{Meter: &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(nil)}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := callsOf(tc.methods...)
			if e := m.Admit(context.Background(), k, n, calls, 0); e != nil {
				t.Fatalf("refused: %v", e)
			}
			for i, c := range calls {
				want := int64(5)
				if tc.wantCredits != nil {
					want = tc.wantCredits[i]
				} else if c.Req.Method == "eth_call" {
					want = 80
				}
				if c.Credits() != want {
					t.Fatalf("call %d (%s): %d credits, want %d", i, c.Req.Method, c.Credits(), want)
				}
			}
		})
	}
	// 13 eth_call (1,040 credits) are over a second's worth of 1,000/s
	// however long the cases above took.
	over := make([]string, 13)
	for i := range over {
		over[i] = "eth_call"
	}
	e := m.Admit(context.Background(), k, n, callsOf(over...), 0)
	if e == nil || e.Status != http.StatusTooManyRequests {
		t.Fatalf("over the rate: %+v", e)
	}
	if a := m.Notifications(context.Background(), k, nil); a != nil {
		t.Fatal("notifications charged without Notes")
	}
}

// TestMeterCopiesReused: the meter's view of a request too large for the
// stack comes from a pool, so a batch is not copied into fresh memory on
// every Admit and Record.
func TestMeterCopiesReused(t *testing.T) {
	calls := make([]*pipeline.Call, 100)
	for i := range calls {
		calls[i] = &pipeline.Call{Req: jsonrpc.Request{Method: "eth_chainId"}}
		calls[i].SetCredits(int64(i))
	}
	allocs := testing.AllocsPerRun(100, func() {
		var buf [meterBatch]ratelimit.Call
		view, pooled := meterCalls(buf[:0], calls)
		if len(view) != len(calls) || view[99].Credits != 99 || view[0].Method != "eth_chainId" {
			t.Fatalf("view %d calls", len(view))
		}
		giveBack(pooled)
	})
	if allocs > 0 {
		t.Fatalf("%.1f allocations per request of 100 calls, want none", allocs)
	}
}

// TestAllowlistRefusalsNotCharged: a call the key's method or contract
// allowlist refuses is refused before any node runs it, and costs nothing
// (as an origin refusal costs nothing); an allowed call is charged.
func TestAllowlistRefusalsNotCharged(t *testing.T) {
	f := newFixture(t)
	const allowed = "0x00000000000000000000000000000000000000aa"
	created := f.key(t, keys.CreateParams{Settings: keys.Patch{
		AllowedMethods:   &[]string{"eth_call", "eth_chainId"},
		AllowedContracts: &[]string{allowed},
	}})
	k, ok := f.cache.Lookup(created.Key)
	if !ok {
		t.Fatal("key not found")
	}
	n := &pipeline.Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	lim, err := ratelimit.New(ratelimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := RateMeter{Meter: &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(nil)}}
	cases := []struct {
		name, method, params string
		want                 int64
	}{
		{"method not allowed", "eth_getLogs", `[{"address":"` + allowed + `"}]`, 0},
		{"contract not allowed", "eth_call", `[{"to":"0x00000000000000000000000000000000000000bb"},"latest"]`, 0},
		{"allowed contract", "eth_call", `[{"to":"` + allowed + `"},"latest"]`, 80},
		{"allowed method naming no contract", "eth_chainId", `[]`, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &pipeline.Call{Req: jsonrpc.Request{Method: tc.method, Params: json.RawMessage(tc.params)}, Key: k, Network: n}
			if e := m.Admit(context.Background(), k, n, []*pipeline.Call{c}, 0); e != nil {
				t.Fatalf("refused: %v", e)
			}
			if c.Credits() != tc.want {
				t.Fatalf("%d credits, want %d", c.Credits(), tc.want)
			}
		})
	}
}
