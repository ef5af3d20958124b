package pipeline_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// serveAll runs ServeBatch and collects its answers, failing unless they
// come once each and in the calls' order.
func serveAll(t testing.TB, p *pipeline.Pipeline, calls []*pipeline.Call, lim pipeline.BatchLimits) []*jsonrpc.Response {
	t.Helper()
	out := make([]*jsonrpc.Response, 0, len(calls))
	p.ServeBatch(context.Background(), calls, lim, func(i int, r *jsonrpc.Response) error {
		if i != len(out) {
			t.Errorf("answer %d emitted after %d answers", i, len(out))
		}
		out = append(out, r)
		return nil
	})
	if len(out) != len(calls) {
		t.Fatalf("%d answers for %d calls", len(out), len(calls))
	}
	return out
}

// sized is a network whose node answers every call with a string result
// of size bytes (quotes included), counting calls and the most in flight.
func sized(size int, hits, peak *atomic.Int64) *pipeline.Network {
	var inFlight atomic.Int64
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", size-2) + `"}`)
	return network(func(ctx context.Context, _ []byte) ([]byte, error) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for old := peak.Load(); cur > old && !peak.CompareAndSwap(old, cur); old = peak.Load() {
		}
		return body, nil
	}, hits)
}

// calls are count calls of a method whose answer may be large (an unknown
// one: methods.LargeAnswer), so the answer budget's window holds them back.
func calls(n *pipeline.Network, count int) []*pipeline.Call {
	return callsOf(n, count, "eth_madeUpLargeAnswer")
}

func callsOf(n *pipeline.Network, count int, method string) []*pipeline.Call {
	out := make([]*pipeline.Call, count)
	for i := range out {
		out[i] = mkCall(n, strconv.Itoa(i), method, "[]")
	}
	return out
}

// TestAnswerBudget: go-ethereum's rule. The answers are counted in order;
// the one that passes the budget is still given whole, every later call
// answers -32003 response too large, and the calls after it are not run.
func TestAnswerBudget(t *testing.T) {
	cases := []struct {
		name       string
		size       int
		count      int
		budget     int64
		full       int // answers given whole, the rest -32003
		maxStarted int64
	}{
		{"no budget", 1000, 20, 0, 20, 20},
		{"under the budget", 1000, 20, 100_000, 20, 20},
		{"exactly the budget", 1000, 20, 20_000, 20, 20},
		{"third passes it", 1000, 20, 2500, 3, 6},
		{"first passes it", 1000, 20, 999, 0, 2},
		{"single call over it", 1000, 1, 999, 0, 1},
		{"single call under it", 1000, 1, 1000, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hits, peak atomic.Int64
			p := pipeline.Build(pipeline.Options{BatchParallelism: 16})
			answers := serveAll(t, p, calls(sized(tc.size, &hits, &peak), tc.count), pipeline.BatchLimits{MaxAnswerBytes: tc.budget})
			for i, a := range answers {
				if i < tc.full {
					if a.Err != nil || len(a.Result) != tc.size {
						t.Fatalf("answer %d: %d bytes, %v; want the whole result", i, len(a.Result), a.Err)
					}
					continue
				}
				if a.Err == nil || a.Err.Code != -32003 || a.Err.Message != "response too large" {
					t.Fatalf("answer %d: %d bytes, %v; want -32003 response too large", i, len(a.Result), a.Err)
				}
			}
			if hits.Load() > tc.maxStarted {
				t.Fatalf("the node ran %d calls, want at most %d", hits.Load(), tc.maxStarted)
			}
		})
	}
}

// TestBatchWindow: calls whose answers fill the budget run a few at a
// time, while small answers open the window to the whole parallelism.
func TestBatchWindow(t *testing.T) {
	var hits, peak atomic.Int64
	p := pipeline.Build(pipeline.Options{BatchParallelism: 16})
	serveAll(t, p, calls(sized(40_000, &hits, &peak), 40), pipeline.BatchLimits{MaxAnswerBytes: 100_000})
	if peak.Load() > 2 {
		t.Fatalf("%d large calls ran at once, want at most 2", peak.Load())
	}
	if hits.Load() > 4 {
		t.Fatalf("the node ran %d calls of a batch spent after 3", hits.Load())
	}
}

// TestOrdinaryAnswersSkipTheWindow: calls not known to answer large start
// at once, up to the parallelism, even under a budget; the window holds
// back only the others.
func TestOrdinaryAnswersSkipTheWindow(t *testing.T) {
	var hits, peak atomic.Int64
	release := make(chan struct{})
	var started atomic.Int64
	n := network(func(ctx context.Context, _ []byte) ([]byte, error) {
		cur := started.Add(1)
		for old := peak.Load(); cur > old && !peak.CompareAndSwap(old, cur); old = peak.Load() {
		}
		if cur == 8 {
			close(release)
		}
		select {
		case <-release:
		case <-ctx.Done():
		case <-time.After(10 * time.Second): // only a guard against a hang: the peak decides
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), nil
	}, &hits)
	p := pipeline.Build(pipeline.Options{BatchParallelism: 16})
	serveAll(t, p, callsOf(n, 8, "eth_getBlockByNumber"), pipeline.BatchLimits{MaxAnswerBytes: 25_000_000})
	if peak.Load() != 8 {
		t.Fatalf("%d bounded calls ran at once, want all 8", peak.Load())
	}
}

// TestEmitErrorStops: once the client is gone (emit fails), nothing more
// is emitted and no call is started.
func TestEmitErrorStops(t *testing.T) {
	var hits, peak atomic.Int64
	p := pipeline.Build(pipeline.Options{BatchParallelism: 1})
	emitted := 0
	p.ServeBatch(context.Background(), calls(sized(100, &hits, &peak), 50), pipeline.BatchLimits{}, func(i int, r *jsonrpc.Response) error {
		emitted++
		if i == 2 {
			return errors.New("client gone")
		}
		return nil
	})
	if emitted != 3 || hits.Load() > 4 {
		t.Fatalf("emitted %d answers and ran %d calls after the client left at the third", emitted, hits.Load())
	}
}
