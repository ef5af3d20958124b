package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

var (
	nodeOnce sync.Once
	node     *evmnode.Node
	nodeErr  error
)

func devNode(t *testing.T) *evmnode.Node {
	t.Helper()
	nodeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		node, nodeErr = evmnode.Start(ctx, evmnode.Config{})
	})
	if nodeErr != nil {
		t.Fatalf("start embedded node: %v", nodeErr)
	}
	return node
}

// network wraps fn as the network's only upstream, counting what reaches it.
func network(fn func(ctx context.Context, body []byte) ([]byte, error), calls *atomic.Int64) *pipeline.Network {
	return &pipeline.Network{
		Name: "test", Methods: methods.NewTable(methods.FamilyEVM),
		Upstream: upstream.Func{ID: "test", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
			calls.Add(1)
			return fn(ctx, body)
		}},
	}
}

func mkCall(n *pipeline.Network, id, method, params string) *pipeline.Call {
	return &pipeline.Call{Req: jsonrpc.Request{ID: json.RawMessage(id), Method: method, Params: json.RawMessage(params)}, Network: n}
}

func TestServeBatchInOrder(t *testing.T) {
	var hits atomic.Int64
	n := network(devNode(t).Do, &hits)
	p := pipeline.Build(pipeline.Options{BatchParallelism: 8})
	calls := make([]*pipeline.Call, 1000)
	for i := range calls {
		switch i % 3 {
		case 0:
			calls[i] = mkCall(n, strconv.Itoa(i), "eth_chainId", "[]")
		case 1:
			// The slot number differs per call, so a mix-up would show.
			calls[i] = mkCall(n, strconv.Itoa(i), "eth_getStorageAt", `["0x00000000000000000000000000000000000000aa","0x`+strconv.FormatInt(int64(i), 16)+`","latest"]`)
		default:
			calls[i] = mkCall(n, strconv.Itoa(i), "admin_peers", "[]")
		}
	}
	answers := serveAll(t, p, calls, pipeline.BatchLimits{})
	if len(answers) != len(calls) {
		t.Fatalf("%d answers for %d calls", len(answers), len(calls))
	}
	for i, a := range answers {
		switch i % 3 {
		case 0:
			if a.Err != nil || string(a.Result) != `"0x539"` {
				t.Fatalf("answer %d: %s %v", i, a.Result, a.Err)
			}
		case 1:
			if a.Err != nil || len(a.Result) != 68 {
				t.Fatalf("answer %d: %s %v", i, a.Result, a.Err)
			}
		default:
			if a.Err == nil || a.Err.Code != jsonrpc.CodeMethodNotFound {
				t.Fatalf("answer %d: %s %v", i, a.Result, a.Err)
			}
		}
	}
	if got, want := hits.Load(), int64(667); got != want {
		t.Fatalf("upstream saw %d calls, want %d (refused methods must not reach it)", got, want)
	}
}

// TestServeBatchConcurrency: a batch runs its calls at once, bounded by
// BatchParallelism.
func TestServeBatchConcurrency(t *testing.T) {
	var hits, inFlight, peak atomic.Int64
	release := make(chan struct{})
	n := network(func(ctx context.Context, body []byte) ([]byte, error) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			old := peak.Load()
			if cur <= old || peak.CompareAndSwap(old, cur) {
				break
			}
		}
		<-release
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), nil
	}, &hits)
	p := pipeline.Build(pipeline.Options{BatchParallelism: 4})
	calls := make([]*pipeline.Call, 20)
	for i := range calls {
		calls[i] = mkCall(n, strconv.Itoa(i), "eth_chainId", "[]")
	}
	done := make(chan []*jsonrpc.Response)
	go func() { done <- serveAll(t, p, calls, pipeline.BatchLimits{}) }()
	deadline := time.After(5 * time.Second)
	for inFlight.Load() < 4 {
		select {
		case <-deadline:
			t.Fatalf("only %d calls in flight at once", inFlight.Load())
		case <-time.After(time.Millisecond):
		}
	}
	close(release)
	answers := <-done
	if peak.Load() != 4 {
		t.Fatalf("peak concurrency %d, want 4", peak.Load())
	}
	for i, a := range answers {
		if a.Err != nil || string(a.Result) != `"0x1"` {
			t.Fatalf("answer %d: %s %v", i, a.Result, a.Err)
		}
	}
}

// TestRulesBeforeUpstream: bad methods and params are answered without
// touching the node, with the table's errors.
func TestRulesBeforeUpstream(t *testing.T) {
	var hits atomic.Int64
	n := network(devNode(t).Do, &hits)
	p := pipeline.Build(pipeline.Options{})
	cases := []struct {
		method, params string
		code           int
	}{
		{"debug_traceTransaction", "[]", jsonrpc.CodeMethodNotFound},
		{"eth_sendTransaction", "[{}]", jsonrpc.CodeMethodNotFound},
		{"rollup_pendingTransactions", "[]", jsonrpc.CodeMethodNotFound},
		{"eth_getTransactionByHash", `["0x1"]`, jsonrpc.CodeInvalidParams},
		{"eth_call", `[{}]`, jsonrpc.CodeInvalidParams},
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			a := p.Serve(context.Background(), mkCall(n, "1", tc.method, tc.params))
			if a.Err == nil || a.Err.Code != tc.code {
				t.Fatalf("answer %s %v, want code %d", a.Result, a.Err, tc.code)
			}
		})
	}
	if hits.Load() != 0 {
		t.Fatalf("upstream saw %d calls", hits.Load())
	}
}

// TestUpstreamFailures: a panic, an error and garbage from the upstream
// each answer that call alone, never the batch or the process.
func TestUpstreamFailures(t *testing.T) {
	var hits atomic.Int64
	n := network(func(ctx context.Context, body []byte) ([]byte, error) {
		var req struct {
			Params []string `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		switch req.Params[0] {
		case "panic":
			panic("upstream bug")
		case "error":
			return nil, errors.New("connection refused")
		case "garbage":
			return []byte(`<html>`), nil
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"ok"}`), nil
	}, &hits)
	p := pipeline.Build(pipeline.Options{})
	calls := []*pipeline.Call{
		mkCall(n, "1", "eth_x", `["panic"]`),
		mkCall(n, "2", "eth_x", `["fine"]`),
		mkCall(n, "3", "eth_x", `["error"]`),
		mkCall(n, "4", "eth_x", `["garbage"]`),
	}
	answers := serveAll(t, p, calls, pipeline.BatchLimits{})
	want := []int{jsonrpc.CodeInternal, 0, jsonrpc.CodeInternal, jsonrpc.CodeInternal}
	for i, a := range answers {
		code := 0
		if a.Err != nil {
			code = a.Err.Code
		}
		if code != want[i] {
			t.Errorf("answer %d: %s %v, want code %d", i, a.Result, a.Err, want[i])
		}
	}
	if a := answers[2]; a.Err == nil || a.Err.HTTPStatus() != 503 || a.Err.Message != "upstream unavailable" {
		t.Errorf("upstream error answered %v", a.Err)
	}
}
