package ratelimit

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
)

// storedKey makes a key in a SQLite store on plan p with patch applied,
// and returns it as the hot path sees it.
func storedKey(t *testing.T, p keys.Plan, patch keys.Patch) *keys.Key {
	t.Helper()
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	plans := map[string]keys.Plan{p.Name: p}
	c, err := (&keys.Manager{Store: store, Plans: plans}).Create(ctx, keys.CreateParams{Name: "k", Plan: p.Name, Settings: patch})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := keys.NewCache(ctx, store, plans, p.Name, nil, keys.CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cache.Close)
	k, ok := cache.Lookup(c.Key)
	if !ok {
		t.Fatal("key not found")
	}
	return k
}

// frozenMeter is a meter whose limiter's clock stands still: no credit
// comes back between two calls, however slow the machine.
func frozenMeter(t *testing.T) *Meter {
	t.Helper()
	lim, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return at }
	lim.now, lim.local = clock, newMemoryAt(clock)
	return &Meter{Limiter: lim, Costs: NewCosts(nil)}
}

type refusalData struct {
	Limit   string  `json:"limit"`
	Allowed float64 `json:"allowed_rps"`
	Daily   int64   `json:"allowed_daily_credits"`
}

func TestRefusalsNameTheLimit(t *testing.T) {
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	plan := keys.Plan{Name: "p", RatePerSecond: 1000, DailyCredits: 1_000_000}
	rate, daily := 100.0, int64(200)
	for _, tc := range []struct {
		name      string
		patch     keys.Patch
		first     []Call // admitted
		then      []Call // refused
		wantMsg   string
		wantLimit string
		wantValue float64
	}{
		{"the plan's rate", keys.Patch{}, calls(repeat("eth_call", 12)...), calls("eth_call", "eth_call"), msgRate, keys.LimitPlanRate, 1000},
		{"the key's own rate", keys.Patch{RatePerSecond: &rate}, calls("eth_call"), calls("eth_call"), msgRate, keys.LimitKeyRate, 100},
		{"the key's own daily credits", keys.Patch{DailyCredits: &daily}, calls("eth_call", "eth_call"), calls("eth_call"), msgDaily, keys.LimitKeyDaily, 200},
		{"a method's own rate", keys.Patch{MethodRates: map[string]float64{"eth_getLogs": 5}}, calls(repeat("eth_getLogs", 5)...), calls("eth_chainId", "eth_getLogs"), msgRate, MethodRateLimit("eth_getLogs"), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := frozenMeter(t)
			k := storedKey(t, plan, tc.patch)
			if e := m.Admit(context.Background(), k, n, tc.first, 0); e != nil {
				t.Fatalf("first request refused: %+v", e)
			}
			e := m.Admit(context.Background(), k, n, tc.then, 0)
			if e == nil || e.Status != 429 || e.Message != tc.wantMsg {
				t.Fatalf("refusal = %+v, want 429 %q", e, tc.wantMsg)
			}
			var d refusalData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatalf("data %s: %v", e.Data, err)
			}
			value := d.Allowed
			if tc.wantMsg == msgDaily {
				value = float64(d.Daily)
			}
			if d.Limit != tc.wantLimit || value != tc.wantValue {
				t.Fatalf("data %s, want limit %q of %v", e.Data, tc.wantLimit, tc.wantValue)
			}
		})
	}
}

func TestMethodRateCountsOnlyItsMethod(t *testing.T) {
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	m := frozenMeter(t)
	k := storedKey(t, keys.Plan{Name: "p"}, keys.Patch{MethodRates: map[string]float64{"eth_getLogs": 2}})
	if e := m.Admit(context.Background(), k, n, calls(repeat("eth_chainId", 50)...), 0); e != nil {
		t.Fatalf("other methods are not counted against eth_getLogs' rate: %+v", e)
	}
	refused := []Call{{Method: "eth_getLogs", Refused: true}, {Method: "eth_getLogs", Refused: true}, {Method: "eth_getLogs", Refused: true}}
	if e := m.Admit(context.Background(), k, n, refused, 0); e != nil {
		t.Fatalf("calls the key's allowlists refuse are not counted: %+v", e)
	}
	if e := m.Admit(context.Background(), k, n, calls("eth_getLogs", "eth_getLogs"), 0); e != nil {
		t.Fatalf("two eth_getLogs at 2/s: %+v", e)
	}
	if e := m.Admit(context.Background(), k, n, calls("eth_getLogs"), 0); e == nil {
		t.Fatal("a third eth_getLogs in the same instant admitted at 2/s")
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
