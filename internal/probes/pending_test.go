package probes

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// probePendingBlock is probe (a), issue 29's first finding: one key asks
// for the pending block once a second (its number is the head's plus one)
// while another key calls at the head every 20 ms, on the embedded
// default; the other key's calls fail 0 times. The rule is the pool's
// (heads only from mined blocks: internal/upstream, and
// TestPendingBlockMovesNoHead in internal/service over two members).
func probePendingBlock(t *testing.T, f *figures) {
	asker, other := strings.Repeat("a1", 16), strings.Repeat("b2", 16)
	s := startService(t, func(c *config.Config) {
		c.APIKeys = []string{asker, other}
		c.NoStarknet = true
		c.Plans[config.PlanTeam] = config.Plan{} // the probe's own load: no rate limits
	})
	rounds := pick(6, 120) // seconds
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rounds+60)*time.Second)
	defer cancel()
	var (
		mu              sync.Mutex
		calls, failed   int
		failures        []string
		lat             []time.Duration
		pendingAnswered int
		stop            = make(chan struct{})
		wg              sync.WaitGroup
	)
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			body := testenv.RPCBody("eth_blockNumber", "")
			if i%2 == 1 {
				body = testenv.RPCBody("eth_getBalance", `["0x00000000000000000000000000000000000000aa","latest"]`)
			}
			a := post(ctx, s.URL()+"/v3/"+other, body)
			mu.Lock()
			calls++
			lat = append(lat, a.took)
			if !a.ok() {
				failed++
				failures = append(failures, clip(a.String()))
			}
			mu.Unlock()
		}
	})
	for range rounds {
		a := post(ctx, s.URL()+"/v3/"+asker, testenv.RPCBody("eth_getBlockByNumber", `["pending",false]`))
		if a.ok() {
			mu.Lock()
			pendingAnswered++
			mu.Unlock()
		}
		time.Sleep(time.Second)
	}
	close(stop)
	wg.Wait()
	f.add("a pending block", "%d s, %d pending asked (%d answered); other key: %d calls, %d failed, p99 %v",
		rounds, rounds, pendingAnswered, calls, failed, quantile(lat, 0.99).Round(time.Millisecond))
	if failed > 0 || calls == 0 {
		t.Fatalf("another key's calls while one asked for the pending block: %d of %d failed (target 0): %v", failed, calls, failures[:min(5, len(failures))])
	}
}
