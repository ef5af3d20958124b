package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
	"github.com/nodegate/nodegate/jsonrpc"
)

// forward sends one call whose method the pool is not told (no rule):
// answered at the head, under Send's retry rules.
func forward(ctx context.Context, p *upstream.Pool, body []byte, idempotent bool) (*jsonrpc.Response, error) {
	resp, _, err := p.Send(ctx, upstream.Call{Body: body, Idempotent: idempotent})
	return resp, err
}

// fakeNode is a JSON-RPC node on loopback whose behaviour a test sets.
type fakeNode struct {
	srv    *httptest.Server
	head   atomic.Uint64
	calls  atomic.Int64 // non-head calls received
	answer atomic.Value // string: the JSON of result or error for other calls
	status atomic.Int64 // HTTP status for other calls (0: 200)
	delay  atomic.Int64 // ns before answering other calls
}

func newFakeNode(t *testing.T, head uint64, answer string) *fakeNode {
	t.Helper()
	f := &fakeNode{}
	f.head.Store(head)
	f.answer.Store(answer)
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeNode) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &req)
	if req.Method == "eth_blockNumber" {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x%x"}`, req.ID, f.head.Load())
		return
	}
	f.calls.Add(1)
	if d := f.delay.Load(); d > 0 {
		select {
		case <-time.After(time.Duration(d)):
		case <-r.Context().Done():
			return
		}
	}
	if st := f.status.Load(); st != 0 {
		w.WriteHeader(int(st))
		_, _ = io.WriteString(w, "overloaded")
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, req.ID, f.answer.Load().(string))
}

func httpMember(t *testing.T, url string) upstream.MemberConfig {
	t.Helper()
	u, err := transport.NewHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	return upstream.MemberConfig{Upstream: u}
}

func startPool(t *testing.T, cfg upstream.PoolConfig, members ...upstream.MemberConfig) *upstream.Pool {
	t.Helper()
	p := upstream.NewPool("test", cfg, members...)
	p.Start(context.Background())
	t.Cleanup(p.Close)
	return p
}

var callBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["0x01"]}`)

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestPoolChoosesOnlyNodesAtTheHead(t *testing.T) {
	ahead := newFakeNode(t, 100, `"result":"ahead"`)
	behind := newFakeNode(t, 90, `"result":"behind"`)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, ahead.srv.URL), httpMember(t, behind.srv.URL))
	for range 50 {
		resp, err := forward(context.Background(), p, callBody, true)
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.Result) != `"ahead"` {
			t.Fatalf("answer from the lagging node: %s", resp.Result)
		}
	}
	if behind.calls.Load() != 0 {
		t.Fatalf("lagging node got %d calls", behind.calls.Load())
	}
}

func TestPoolRetries(t *testing.T) {
	tests := []struct {
		name       string
		first      func(f *fakeNode) // makes the first node misbehave
		idempotent bool
		wantResult string // result expected from the client's view
		wantSecond bool   // the healthy node is asked
		wantErr    bool
	}{
		{"5xx is retried", func(f *fakeNode) { f.status.Store(503) }, true, `"good"`, true, false},
		{"429 is retried", func(f *fakeNode) { f.status.Store(429) }, true, `"good"`, true, false},
		{"header not found is retried", func(f *fakeNode) { f.answer.Store(`"error":{"code":-32000,"message":"header not found"}`) }, true, `"good"`, true, false},
		{"revert is an answer", func(f *fakeNode) {
			f.answer.Store(`"error":{"code":3,"message":"execution reverted","data":"0x"}`)
		}, true, "", false, false},
		{"null is an answer", func(f *fakeNode) { f.answer.Store(`"result":null`) }, true, "null", false, false},
		{"a write is not sent twice", func(f *fakeNode) { f.status.Store(503) }, false, "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := newFakeNode(t, 10, `"result":"bad"`)
			good := newFakeNode(t, 10, `"result":"good"`)
			tc.first(bad)
			// Only the bad node first: the good one joins at a lower priority tier.
			p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, FailThreshold: 100},
				httpMember(t, bad.srv.URL), upstream.MemberConfig{Upstream: mustHTTP(t, good.srv.URL), Priority: 1})
			resp, err := forward(context.Background(), p, callBody, tc.idempotent)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %+v", resp)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tc.wantResult != "" && string(resp.Result) != tc.wantResult {
				t.Fatalf("result %s, want %s", resp.Result, tc.wantResult)
			}
			if got := good.calls.Load() > 0; got != tc.wantSecond {
				t.Fatalf("second node asked: %v, want %v", got, tc.wantSecond)
			}
			if bad.calls.Load() != 1 {
				t.Fatalf("first node asked %d times, want once", bad.calls.Load())
			}
		})
	}
}

func mustHTTP(t *testing.T, url string) upstream.Upstream {
	t.Helper()
	u, err := transport.NewHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPoolRetriesWriteWhenNothingWasSent(t *testing.T) {
	good := newFakeNode(t, 10, `"result":"0xhash"`)
	dead := deadURL(t)
	p := upstream.NewPool("test", upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, dead), upstream.MemberConfig{Upstream: mustHTTP(t, good.srv.URL), Priority: 1})
	// No Start: both members count as healthy, so the dead one is tried first.
	resp, err := forward(context.Background(), p, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x00"]}`), false)
	if err != nil {
		t.Fatalf("refused connection should move a write to the next node: %v", err)
	}
	if string(resp.Result) != `"0xhash"` || good.calls.Load() != 1 {
		t.Fatalf("got %s with %d calls on the good node", resp.Result, good.calls.Load())
	}
}

func TestPoolTakesOutAndBringsBack(t *testing.T) {
	f := newFakeNode(t, 5, `"result":"ok"`)
	other := newFakeNode(t, 5, `"result":"other"`)
	p := startPool(t, upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, ProbeInterval: 10 * time.Millisecond},
		httpMember(t, f.srv.URL), httpMember(t, other.srv.URL))
	f.status.Store(503)
	// Calls keep succeeding while one node fails.
	for range 20 {
		resp, err := forward(context.Background(), p, callBody, true)
		if err != nil || string(resp.Result) != `"other"` {
			t.Fatalf("call failed or went to the failing node: %v %+v", err, resp)
		}
	}
	if p.Members()[0].Healthy() {
		t.Fatal("the failing node is still in service")
	}
	f.status.Store(0)
	testenv.WaitFor(t, 2*time.Second, "the node back after recovering", p.Members()[0].Healthy)
}

func TestPoolAllDown(t *testing.T) {
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, ProbeInterval: time.Hour}, httpMember(t, deadURL(t)), httpMember(t, deadURL(t)))
	start := time.Now()
	_, err := forward(context.Background(), p, callBody, true)
	if err == nil {
		t.Fatal("want an error with every node down")
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("took %v to give up", time.Since(start))
	}
}

func TestIsNodeFaultAnswer(t *testing.T) {
	tests := []struct {
		name string
		code int
		msg  string
		want bool
	}{
		{"header not found", -32000, "header not found", true},
		{"missing trie node", -32000, "missing trie node 1234 (path )", true},
		{"revert", 3, "execution reverted: header not found", false},
		{"invalid params", -32602, "invalid argument 0: unknown block", false},
		{"nonce too low", -32000, "nonce too low", false},
		{"rate limited", -32005, "Too Many Requests", true},
		{"log index rewinding", -32000, "failed to retrieve log value pointer after last block 15: failed to retrieve log value pointer of block 16: not found", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstream.IsNodeFaultAnswer(&jsonrpc.Error{Code: tc.code, Message: tc.msg}); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPoolKeepsLaggingNodesOutAfterTheHeadDies(t *testing.T) {
	ahead := newFakeNode(t, 100, `"result":"ahead"`)
	behind := newFakeNode(t, 90, `"result":"behind"`)
	p := startPool(t, upstream.PoolConfig{HeadInterval: 10 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, LagMemory: time.Hour, HeadWait: 100 * time.Millisecond},
		httpMember(t, ahead.srv.URL), httpMember(t, behind.srv.URL))
	if _, err := forward(context.Background(), p, callBody, true); err != nil {
		t.Fatal(err)
	}
	ahead.srv.Close()
	waitHealthy(t, p.Members()[0], false)
	resp, err := forward(context.Background(), p, callBody, true)
	if err == nil {
		t.Fatalf("a lagging node answered after the head died: %s", resp.Result)
	}
	if behind.calls.Load() != 0 {
		t.Fatalf("lagging node got %d calls", behind.calls.Load())
	}
}

func TestPoolFollowsAResetChainAfterLagMemory(t *testing.T) {
	ahead := newFakeNode(t, 100, `"result":"ahead"`)
	behind := newFakeNode(t, 90, `"result":"behind"`)
	p := startPool(t, upstream.PoolConfig{HeadInterval: 10 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, LagMemory: 50 * time.Millisecond},
		httpMember(t, ahead.srv.URL), httpMember(t, behind.srv.URL))
	ahead.srv.Close()
	waitHealthy(t, p.Members()[0], false)
	time.Sleep(100 * time.Millisecond)
	resp, err := forward(context.Background(), p, callBody, true)
	if err != nil || string(resp.Result) != `"behind"` {
		t.Fatalf("after lag_memory the remaining node should serve: %v %+v", err, resp)
	}
}

func waitHealthy(t *testing.T, m *upstream.Member, want bool) {
	t.Helper()
	testenv.WaitFor(t, 3*time.Second, fmt.Sprintf("member %s healthy=%v", m.Name(), want), func() bool { return m.Healthy() == want })
}

// TestCallerDeadlineIsNotANodeFault: a call whose caller gives up (a
// query's time limit) leaves the node in service.
func TestCallerDeadlineIsNotANodeFault(t *testing.T) {
	slow := newFakeNode(t, 1, `"result":"late"`)
	slow.delay.Store(int64(time.Second))
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, AttemptTimeout: 10 * time.Second}, httpMember(t, slow.srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := forward(ctx, p, callBody, true); err == nil {
		t.Fatal("want the caller's deadline")
	}
	if !p.Members()[0].Healthy() {
		t.Fatal("the node was taken out for the caller's deadline")
	}
}

// TestRetryBudgetBoundsACall: a call ends when its retry budget is spent,
// and running out of budget is not the node's fault.
func TestRetryBudgetBoundsACall(t *testing.T) {
	slow := newFakeNode(t, 1, `"result":"late"`)
	slow.delay.Store(int64(2 * time.Second))
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, AttemptTimeout: 10 * time.Second, RetryBudget: 150 * time.Millisecond}, httpMember(t, slow.srv.URL))
	start := time.Now()
	if _, err := forward(context.Background(), p, callBody, true); err == nil {
		t.Fatal("want an error once the budget is spent")
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the call took %v with a 150ms retry budget", took)
	}
	if !p.Members()[0].Healthy() {
		t.Fatal("the node was taken out because the call's budget ran out")
	}
}
