package subs

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/jsonrpc"
)

// benchSubscribers is how many subscribers of each kind the benchmark has.
const benchSubscribers = 10_000

// countingNotifier counts what it is given (a transport that queues).
type countingNotifier struct{ n atomic.Int64 }

func (c *countingNotifier) Notify(string, *jsonrpc.Notification) { c.n.Add(1) }

// BenchmarkChainFeed: one block joining the canonical chain, delivered to
// 10,000 newHeads and 10,000 logs subscriptions (the logs ones sharing one
// filter, or each with a filter of its own): the upstream calls per block
// and the allocations per notification (not time: the machine is shared).
// The member's head moves one block at a time, as the pool polls it; the
// allocations include the polls'.
func BenchmarkChainFeed(b *testing.B) {
	for _, distinct := range []bool{false, true} {
		b.Run(fmt.Sprintf("distinct_filters=%v", distinct), func(b *testing.B) { benchChainFeed(b, benchSubscribers, distinct) })
	}
}

func benchChainFeed(b *testing.B, subscribers int, distinct bool) {
	c := newFakeChain()
	h1 := c.add(1, 1, 0, 0)
	m := newFakeMember(b, c, h1)
	pool, hub := startFakePool(b, m)
	testenv.WaitFor(b, 10*time.Second, "the pool at block 1", func() bool { return pool.Head() == 1 })
	var sink countingNotifier
	for i := range subscribers {
		cl := hub.NewClient(&sink, 10, nil)
		subscribe(b, cl, `["newHeads"]`)
		if distinct {
			// Each its own filter, every one matching the block's log.
			subscribe(b, cl, fmt.Sprintf(`["logs",{"address":["%s","0x%040x"]}]`, logAddr, i+1))
		} else {
			subscribe(b, cl, `["logs",{"address":"`+logAddr+`"}]`)
		}
	}
	calls := func() int64 { return m.count("eth_getBlockByHash") + m.count("eth_getLogs") }
	callsBefore, sentBefore := calls(), sink.n.Load()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	b.ResetTimer()
	for i := range b.N {
		n := uint64(i + 2)
		m.head.Store(c.add(n, n, 0, 0))
		want := sentBefore + int64(2*subscribers*(i+1))
		testenv.WaitFor(b, time.Minute, fmt.Sprintf("block %d delivered", n), func() bool { return sink.n.Load() >= want })
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	sent := sink.n.Load() - sentBefore
	if want := int64(2 * subscribers * b.N); sent != want {
		b.Fatalf("%d notifications, want %d", sent, want)
	}
	b.ReportMetric(float64(calls()-callsBefore)/float64(b.N), "calls/block")
	b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(sent), "allocs/notification")
}
