package limits_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// peakHeap samples HeapInuse while fn runs and returns the peak above the
// level before it. The embedded node runs in this process, so the figure
// holds the node's work too: compare it with the same query sent straight
// to the node.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var (
		peak atomic.Uint64
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// BenchmarkGetLogs: nodegate in front of the node (over HTTP, as a remote
// node) next to the same query sent straight to the node's HTTP endpoint.
//
//	go test -run XXX -bench GetLogs -benchtime 5x ./internal/limits/
func BenchmarkGetLogs(b *testing.B) {
	c := testChain(b)
	gw := gateway(b, c.url, nil)
	// firstSub is the first sub-range nodegate asks for a wide range: what
	// an over-limit answer costs the node at least.
	firstSub := hexn(63)
	queries := []struct {
		name, params string
		over         bool
	}{
		{"over limit, 0x0..latest, dense first blocks", filter("0x0", "latest", topicDense), true},
		{"first sub-range of it, 0x0..0x3f", filter("0x0", firstSub, topicDense), false},
		{"over limit, 0x0..latest, no filter", filter("0x0", "latest", nil), true},
		{"exactly 10000, 2 blocks", filter(hexn(c.blockA), hexn(c.blockB), topicDense), false},
		{"exactly 10000, 0x0..latest spread", filter("0x0", "latest", topicSpread), false},
	}
	for _, q := range queries {
		targets := []struct{ name, url string }{{"nodegate", gw}, {"node", c.url}}
		if q.over {
			targets = targets[:1] // the node alone has no limit: it returns everything
		}
		for _, tgt := range targets {
			b.Run(q.name+"/"+tgt.name, func(b *testing.B) {
				if q.name[:5] == "first" && tgt.name == "nodegate" {
					b.Skip("reference for the node only")
				}
				call(b, tgt.url, "eth_getLogs", q.params) // warm
				var peak uint64
				b.ResetTimer()
				for b.Loop() {
					peak = max(peak, peakHeap(func() {
						a := call(b, tgt.url, "eth_getLogs", q.params)
						if (a.Error != nil) != (q.over && tgt.name == "nodegate") {
							b.Fatalf("unexpected answer: %s", a.Error)
						}
					}))
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}
