package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// chainViewRun is one run of the chain-view harness: the relay's delay,
// how long the clients run, and whether the member at the head (the one
// the relay feeds first) is SIGKILLed halfway.
type chainViewRun struct {
	delay, length time.Duration
	kill          bool
}

func (r chainViewRun) String() string {
	s := fmt.Sprintf("D=%v/%v", r.delay, r.length)
	if r.kill {
		s += "/kill"
	}
	return s
}

// chainViewRuns reads NODEGATE_CHAINVIEW: runs as delay:length[:kill],
// comma-separated, or "long" for the 2-minute runs. Unset, one
// brief run (D 0.5s for 25s, the head member killed halfway).
func chainViewRuns(t *testing.T) []chainViewRun {
	spec := os.Getenv("NODEGATE_CHAINVIEW")
	switch spec {
	case "":
		spec = "0.5s:25s:kill"
	case "long":
		spec = "0.5s:2m,2s:2m,5s:2m,0.5s:2m:kill,2s:2m:kill"
	}
	var runs []chainViewRun
	for _, part := range strings.Split(spec, ",") {
		f := strings.Split(part, ":")
		if len(f) < 2 || len(f) > 3 || len(f) == 3 && f[2] != "kill" {
			t.Fatalf("NODEGATE_CHAINVIEW %q: want delay:length[:kill], comma-separated", part)
		}
		d, err1 := time.ParseDuration(f[0])
		l, err2 := time.ParseDuration(f[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("NODEGATE_CHAINVIEW %q: %v %v", part, err1, err2)
		}
		runs = append(runs, chainViewRun{delay: d, length: l, kill: len(f) == 3})
	}
	return runs
}

// TestOneViewOfTheChain runs two `nodegate node` dev chains fed the same
// transactions by a gossip relay (the second gets each one D after the
// first; each block after 2 holds one transaction emitting one log),
// nodegate in front with default pool settings, and clients that check
// what nodegate tells them: eth_blockNumber never lower than before, a
// receipt or transaction once seen never null, eth_getLogs(N..N) and
// eth_getTransactionByBlockNumberAndIndex(N, 0) of the N just seen always
// answered, newHeads without a gap or a copy, and (":kill") no call failed
// when the member at the head is SIGKILLed. NODEGATE_CHAINVIEW=long runs
// docs/pools.md's measured table.
func TestOneViewOfTheChain(t *testing.T) {
	for _, run := range chainViewRuns(t) {
		t.Run(run.String(), func(t *testing.T) { runChainView(t, run) })
	}
}

func runChainView(t *testing.T, run chainViewRun) {
	a := startNode(t, "", "127.0.0.1:0")
	b := startNode(t, "", "127.0.0.1:0")
	cfg := config.Defaults()
	cfg.Listen = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	key := strings.Repeat("ef", 16)
	cfg.APIKeys = []string{key}
	cfg.Plans[config.PlanTeam] = config.Plan{} // the load is the test's: no rate limits
	cfg.Networks = []config.Network{{
		Name: "mainnet", Family: "evm",
		Upstreams: []config.Upstream{{Name: "a", URL: a.wsURL()}, {Name: "b", URL: b.wsURL()}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), run.length+2*time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())

	w := &writer{t: t, relay: &relay{t: t, delay: run.delay, members: []*nodeProc{a, b}}, key: a.devKey(), last: b}
	counts := &viewCounts{vanished: map[common.Hash]bool{}, lookedFor: map[common.Hash]bool{}}
	var heads []*headsClient
	for range 2 {
		heads = append(heads, subscribeHeads(t, svc.WSURL()+"/ws/v3/"+key))
	}
	stopWriter, stopClients := make(chan struct{}), make(chan struct{})
	var writing, checking sync.WaitGroup
	writing.Go(func() { w.run(stopWriter) })
	for range 2 {
		c := &viewClient{url: svc.URL() + "/v3/" + key, http: &http.Client{Timeout: time.Minute}, counts: counts, w: w}
		checking.Go(func() { c.run(stopClients) })
	}
	start := time.Now()
	if run.kill {
		time.Sleep(run.length / 2)
		a.kill() // the member the relay feeds first: at the head
		t.Logf("SIGKILLed member a after %v", time.Since(start).Round(time.Millisecond))
	}
	time.Sleep(run.length - time.Since(start))
	close(stopClients)
	checking.Wait()
	close(stopWriter)
	writing.Wait()
	w.relay.wg.Wait()

	var head hexutil.Uint64
	raw, err := nodeResult(b.url(), "eth_blockNumber", `[]`)
	if err != nil || json.Unmarshal(raw, &head) != nil {
		t.Fatalf("member b's head: %v %s", err, raw)
	}
	testenv.WaitFor(t, 30*time.Second, "the newHeads clients to reach the head", func() bool {
		for _, h := range heads {
			if h.last() < uint64(head) {
				return false
			}
		}
		return true
	})
	missed, dup := 0, 0
	for _, h := range heads {
		m, d := headsGaps(h, uint64(head))
		missed, dup = missed+m, dup+d
	}

	counts.mu.Lock()
	defer counts.mu.Unlock()
	t.Logf("| %v | %d blocks | backwards eth_blockNumber %d/%d | null after seen %d/%d | getLogs(N..N) errors %d/%d (missing log %d) | by-index null %d/%d | newHeads missed %d, duplicated %d | failed calls %d/%d |",
		run, w.count(), counts.backwards.Load(), counts.blockNumbers.Load(), len(counts.vanished), len(counts.lookedFor),
		counts.logsErrors.Load(), counts.logsQueries.Load(), counts.logsMissing.Load(), counts.byIndexNull.Load(), counts.byIndexCalls.Load(),
		missed, dup, counts.failed.Load(), counts.calls.Load())
	for _, f := range counts.failures {
		t.Log(f)
	}
	if counts.blockNumbers.Load() < 20 || w.count() < 5 {
		t.Fatalf("%d eth_blockNumber answers over %d transactions: the load did not run", counts.blockNumbers.Load(), w.count())
	}
	if counts.backwards.Load()+int64(len(counts.vanished))+counts.logsErrors.Load()+counts.logsMissing.Load()+counts.byIndexNull.Load() != 0 {
		t.Error("a client's view of the chain went backwards (see the counts above)")
	}
	if missed+dup != 0 {
		t.Errorf("newHeads: %d missed, %d duplicated", missed, dup)
	}
	if counts.failed.Load() != 0 {
		t.Errorf("%d calls failed", counts.failed.Load())
	}
}
