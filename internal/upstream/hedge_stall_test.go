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
	staller, fast := newStallNode(t, "staller", 500*time.Millisecond), newStallNode(t, "fast", 0)
	staller.every.Store(10)
	sm, fm := httpMember(t, staller.srv.URL), httpMember(t, fast.srv.URL)
	sm.Name, fm.Name = "staller", "fast"
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, AttemptTimeout: time.Minute, RetryBudget: time.Minute}, sm, fm)
	methods := []string{"eth_getBalance", "eth_getCode", "eth_getTransactionCount", "eth_getStorageAt", "eth_getBlockByNumber"}
	var (
		next, waited, failed atomic.Int64
		wg                   sync.WaitGroup
	)
	for range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= calls; i = next.Add(1) {
				res, _, err := hedgeTrySend(context.Background(), p, hedgeRule(t, methods[i%int64(len(methods))]), true, fmt.Sprintf("0x%x", i))
				switch {
				case err != nil:
					failed.Add(1)
				case strings.Contains(res, "held"):
					waited.Add(1)
				}
			}
		})
	}
	wg.Wait()
	sent, won := p.Hedges()
	t.Logf("%d calls, staller held %d, the client waited out %d; hedges sent %d, won %d", calls, staller.stalled.Load(), waited.Load(), sent, won)
	if failed.Load() != 0 {
		t.Fatalf("%d calls failed", failed.Load())
	}
	if staller.stalled.Load() == 0 {
		t.Fatal("the staller held no call: the test did not test")
	}
	if budget := uint64(calls*upstream.DefaultHedgeShare) + upstream.DefaultHedgeBurst; sent > budget {
		t.Fatalf("%d hedges sent: over the budget (%d)", sent, budget)
	}
	// (the few held before any latency is known are waited out: 2 or 3 of
	// about 60 on a quiet machine, against 33 of 54 when a member's own
	// quantile was its delay)
	if waited.Load()*5 > staller.stalled.Load() {
		t.Fatalf("the client waited out %d of the %d calls the staller held", waited.Load(), staller.stalled.Load())
	}
}
