package upstream_test

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
)

// TestNodeTimeoutIsNotRetried: go-ethereum's -32002 "request timed out"
// says the call ran for as long as the node allows; another node would
// run it as long again, so it is the answer, even for a read.
func TestNodeTimeoutIsNotRetried(t *testing.T) {
	slow := newFakeNode(t, 10, `"error":{"code":-32002,"message":"request timed out"}`)
	other := newFakeNode(t, 10, `"result":"other"`)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, FailThreshold: 100},
		httpMember(t, slow.srv.URL), upstream.MemberConfig{Upstream: mustHTTP(t, other.srv.URL), Priority: 1})
	resp, err := forward(context.Background(), p, callBody, true)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Err == nil || resp.Err.Code != -32002 {
		t.Fatalf("answer %s %v, want the node's -32002", resp.Result, resp.Err)
	}
	if slow.calls.Load() != 1 || other.calls.Load() != 0 {
		t.Fatalf("first node asked %d times, second %d: want 1 and 0", slow.calls.Load(), other.calls.Load())
	}
}
