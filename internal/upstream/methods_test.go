package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// tracerMember answers trace_block when traces is true, else -32601,
// counting the trace_block calls it gets; every other call gets block 1.
func tracerMember(name string, traces bool, calls *atomic.Int64) upstream.MemberConfig {
	return upstream.MemberConfig{Upstream: upstream.Func{ID: name, Fn: func(_ context.Context, body []byte) ([]byte, error) {
		if !bytes.Contains(body, []byte(`"trace_block"`)) {
			return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), nil
		}
		calls.Add(1)
		if !traces {
			return []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method trace_block does not exist/is not available"}}`), nil
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":[]}`), nil
	}}}
}

func sendTrace(t *testing.T, p *upstream.Pool) *jsonrpc.Response {
	t.Helper()
	params := json.RawMessage(`["0x1"]`)
	resp, _, err := p.Send(context.Background(), upstream.Call{Body: jsonrpc.AppendRequest(nil, 1, "trace_block", params),
		Rule: &methods.Rule{Name: "trace_block", Idempotent: true, Unlisted: true}, Params: params, Idempotent: true})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestMethodNotFoundRoutesElsewhere: a member's -32601 marks the method
// unavailable there: the call is answered by the member that serves it,
// later calls of the method go only to that member until the mark's
// re-probe, and /admin/upstreams lists the method; when no member serves
// it, the -32601 is the answer.
func TestMethodNotFoundRoutesElsewhere(t *testing.T) {
	var plainCalls, tracerCalls atomic.Int64
	p := startPool(t, upstream.PoolConfig{MethodRecheck: 200 * time.Millisecond},
		tracerMember("plain", false, &plainCalls), tracerMember("tracer", true, &tracerCalls))
	for range 50 {
		if resp := sendTrace(t, p); resp.Err != nil {
			t.Fatalf("a -32601 reached the caller while a member serves the method: %+v", resp.Err)
		}
	}
	if n := plainCalls.Load(); n > 1 {
		t.Fatalf("the member without the method got %d of its calls, want at most 1", n)
	}
	if plainCalls.Load() == 1 && !slices.Equal(p.Status()[0].UnavailableMethods, []string{"trace_block"}) {
		t.Fatalf("status: %+v", p.Status()[0])
	}
	testenv.WaitFor(t, 10*time.Second, "the mark re-probed", func() bool {
		before := plainCalls.Load()
		sendTrace(t, p)
		return plainCalls.Load() > before
	})

	var none1, none2 atomic.Int64
	q := startPool(t, upstream.PoolConfig{}, tracerMember("a", false, &none1), tracerMember("b", false, &none2))
	for range 3 {
		if resp := sendTrace(t, q); resp.Err == nil || resp.Err.Code != jsonrpc.CodeMethodNotFound {
			t.Fatalf("no member serves the method: got %+v, want -32601", resp.Err)
		}
	}
}
