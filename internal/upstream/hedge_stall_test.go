package upstream_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
)

// TestStallingMemberIsHedged: of two equal members, one holds one call in
// ten for longer than any answer takes; with the default hedging, the
// client waits out almost none of them: the held call goes to the other
// member after the method's usual latency, within the budget. Counted, not
// timed: a held call answers "staller-held", so an answer of it is a call
// the client waited out.
func TestStallingMemberIsHedged(t *testing.T) {
	t.Parallel()
	const calls, clients = 2000, 4
	staller, _, p := startStallPool(t)
	waited, failed := sendStallCalls(t, p, calls, clients)
	sent, won := p.Hedges()
	t.Logf("%d calls, staller held %d, the client waited out %d; hedges sent %d, won %d", calls, staller.stalled.Load(), waited, sent, won)
	if failed != 0 {
		t.Fatalf("%d calls failed", failed)
	}
	if staller.stalled.Load() == 0 {
		t.Fatal("the staller held no call: the test did not test")
	}
	if budget := uint64(calls*upstream.DefaultHedgeShare) + upstream.DefaultHedgeBurst; sent > budget {
		t.Fatalf("%d hedges sent: over the budget (%d)", sent, budget)
	}
	// (the few held before any latency is known are waited out: 2 to 4,
	// against 33 of 54 when a member's own quantile was its delay; the
	// staller holds fewer since the choice learns it holds calls, held.go:
	// 12 to 20 of 2,000 rather than 60)
	if waited > 5 {
		t.Fatalf("the client waited out %d of the %d calls the staller held", waited, staller.stalled.Load())
	}
}

// TestStallerGetsFewerCalls: of two equal members, one holds one call in
// ten; the choice learns it (held.go) and sends it a few percent of the
// calls instead of half, so that held calls are well under 1 % of the
// client's and the hedges they cost keep upstream calls within 1.05 a
// client call. Once it holds none, it regains its share. Counted, not
// timed: each node counts the calls it got, and a held call answers
// "staller-held".
func TestStallerGetsFewerCalls(t *testing.T) {
	t.Parallel()
	const warm, steady, recovery, clients = 1000, 4000, 4000, 4
	staller, fast, p := startStallPool(t)
	// phase makes n client calls and reports the share of upstream calls
	// the staller got, the calls it held, and upstream calls a client call.
	phase := func(name string, n int64) (share float64, held int64, perCall float64) {
		s0, f0, h0 := staller.calls.Load(), fast.calls.Load(), staller.stalled.Load()
		sent0, _ := p.Hedges()
		waited, failed := sendStallCalls(t, p, n, clients)
		s, f := staller.calls.Load()-s0, fast.calls.Load()-f0
		held = staller.stalled.Load() - h0
		sent, _ := p.Hedges()
		share, perCall = float64(s)/float64(s+f), float64(s+f)/float64(n)
		t.Logf("%s: %d client calls, staller got %d (%.1f %%), fast %d; staller held %d, the client waited out %d; %d hedges; %.3f upstream calls a client call",
			name, n, s, 100*share, f, held, waited, sent-sent0, perCall)
		if failed != 0 {
			t.Fatalf("%s: %d calls failed", name, failed)
		}
		if waited > 3 && name != "warm-up" { // before latencies are known, held calls are waited out
			t.Errorf("%s: the client waited out %d held calls", name, waited)
		}
		return share, held, perCall
	}
	phase("warm-up", warm)
	share, held, perCall := phase("steady", steady)
	if st := p.Status(); st[0].HeldRate <= st[1].HeldRate {
		t.Errorf("held rates shown: staller %v, fast %v: want the staller's higher", st[0].HeldRate, st[1].HeldRate)
	} else {
		t.Logf("held rates shown: staller %v, fast %v", st[0].HeldRate, st[1].HeldRate)
	}
	if share >= 0.25 {
		t.Errorf("the staller got %.1f %% of the calls: want < 25 %%", 100*share)
	}
	// (the goal is under 1 %: 0.5-1 % on 2 cores with other work, 3.6 %
	// without the rule; the bound leaves room for a loaded machine)
	if held*50 >= steady {
		t.Errorf("the staller held %d of %d calls: want < 2 %%", held, steady)
	}
	if perCall > 1.05 {
		t.Errorf("%.3f upstream calls a client call: want ≤ 1.05", perCall)
	}
	staller.every.Store(0)
	phase("recovering", recovery)
	// (two members alike share calls about evenly, 40-60 % over a few
	// thousand, less on a loaded machine, where the other may hold a few
	// calls itself)
	if back, _, _ := phase("recovered", 2000); back < 0.2 || back < 2*share {
		t.Errorf("once recovered, the staller got %.1f %% of the calls (%.1f %% while it held calls): want ≥ 20 %% and twice as many", 100*back, 100*share)
	}
}

// startStallPool is a pool of two members alike but for one thing: the
// staller holds one call in ten for 500 ms.
func startStallPool(t *testing.T) (staller, fast *stallNode, p *upstream.Pool) {
	t.Helper()
	staller, fast = newStallNode(t, "staller", 500*time.Millisecond), newStallNode(t, "fast", 0)
	staller.every.Store(10)
	sm, fm := httpMember(t, staller.srv.URL), httpMember(t, fast.srv.URL)
	sm.Name, fm.Name = "staller", "fast"
	p = startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, AttemptTimeout: time.Minute, RetryBudget: time.Minute}, sm, fm)
	return staller, fast, p
}

// stallMethods are the reads the stall tests send, in turn.
var stallMethods = []string{"eth_getBalance", "eth_getCode", "eth_getTransactionCount", "eth_getStorageAt", "eth_getBlockByNumber"}

// sendStallCalls makes n client calls from clients loops; it returns how
// many of them the client waited out (a held answer) and how many failed.
func sendStallCalls(t *testing.T, p *upstream.Pool, n int64, clients int) (waited, failed int64) {
	t.Helper()
	var next, w, f atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= n; i = next.Add(1) {
				res, _, err := hedgeTrySend(context.Background(), p, hedgeRule(t, stallMethods[i%int64(len(stallMethods))]), true, fmt.Sprintf("0x%x", i))
				switch {
				case err != nil:
					f.Add(1)
				case strings.Contains(res, "held"):
					w.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return w.Load(), f.Load()
}
