package probes

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// changeCost is what one replica's refresh after one key change costs:
// bytes allocated and CPU time (user + system, the process's: the probe
// runs nothing else meanwhile).
type changeCost struct {
	bytes uint64
	cpu   time.Duration
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// oneChangeAmong fills a SQLite key store with revoked keys (and a tenth
// as many live ones), starts a replica's key cache on it, changes one live key
// and measures the cache's refresh that takes the change in.
func oneChangeAmong(t *testing.T, revoked int) changeCost {
	ctx := context.Background()
	st, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	const plan = "core"
	now := time.Now().UTC().Add(-time.Minute)
	var live []string
	nLive := revoked / 10
	for i := range revoked + nLive {
		h := keys.HashOf(fmt.Sprintf("%032x", i))
		r := keys.Record{ID: keys.IDOf(h), Name: "k", Plan: plan, Status: keys.StatusRevoked, CreatedAt: now, RevokedAt: &now, Hash: h,
			Account: fmt.Sprintf("acct-%d", i%1000)}
		if i >= revoked {
			r.Status, r.RevokedAt, r.Account = keys.StatusActive, nil, ""
			live = append(live, r.ID)
		}
		if err := st.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	plans := map[string]keys.Plan{plan: {Name: plan, RatePerSecond: 500, DailyCredits: 3_000_000, MaxInFlight: 4, CallTimeout: time.Second}}
	c, err := keys.NewCache(ctx, st, plans, plan, nil, keys.CacheOptions{Poll: time.Hour}) // refreshed by the probe only
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if c.Len() != nLive {
		t.Fatalf("the cache serves %d keys, want the %d live ones", c.Len(), nLive)
	}
	if _, err := st.Modify(ctx, live[50], func(r *keys.Record) error { r.Status = keys.StatusRevoked; r.RevokedAt = &now; return nil }); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	if _, ok := c.ByID(live[50]); ok || c.Len() != nLive-1 {
		t.Fatalf("after the refresh the revoked key is still served (%d keys)", c.Len())
	}
	return changeCost{bytes: after.TotalAlloc - before.TotalAlloc, cpu: cpu}
}

// probeRevokedKeys is probe (e): one key change costs each replica the
// same whether the store holds a thousand revoked keys or many more (the
// issue's 100,000 with NODEGATE_PROBES_LONG=1): the cache reloads the
// keys the change log names, not the table. Asserted on bytes allocated
// (at most twice the small store's, plus 64 KiB); the CPU time is
// reported against the target of 10 ms. The rule is
// internal/keys' (cache_follow.go; TestOneKeyChangeCostsTheSameAtAnySize).
func probeRevokedKeys(t *testing.T, f *figures) {
	small, large := 1_000, pick(10_000, 100_000)
	cs, cl := oneChangeAmong(t, small), oneChangeAmong(t, large)
	f.add("e one key change, revoked keys", "%d revoked (+10%% live): %d KB, %v CPU; %d revoked (+10%% live): %d KB, %v CPU (target ≤ 10 ms CPU, reported); bytes ratio %.2f",
		small, cs.bytes>>10, cs.cpu, large, cl.bytes>>10, cl.cpu, float64(cl.bytes)/float64(max(cs.bytes, 1)))
	if cl.bytes > 2*cs.bytes+64<<10 {
		t.Fatalf("one change among %d revoked keys allocated %d bytes, among %d %d: it grows with the table", large, cl.bytes, small, cs.bytes)
	}
}
