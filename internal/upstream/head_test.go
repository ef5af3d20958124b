package upstream_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// headNode is a real HTTP server on loopback whose head number and head
// block's gas limit the test sets; down makes it answer 503.
type headNode struct {
	head, gasLimit atomic.Uint64
	down           atomic.Bool
	asked          atomic.Int64 // eth_getBlockByNumber("latest") requests
}

func (n *headNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.Contains(string(body), `"eth_getBlockByNumber"`) {
		n.asked.Add(1)
	}
	if n.down.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.Contains(string(body), `"eth_blockNumber"`):
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":"0x%x"}`, n.head.Load())
	case strings.Contains(string(body), `"eth_getBlockByNumber","params":["latest",false]`):
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"number":"0x%x","gasLimit":"0x%x","hash":"0x00"}}`, n.head.Load(), n.gasLimit.Load())
	default:
		http.Error(w, "unexpected", http.StatusBadRequest)
	}
}

// TestPoolGasLimit: the pool knows its head block's gas limit, asks for it
// once per head (not more than once per head interval), keeps the last
// known value while no member answers, and answers 0 while never known.
func TestPoolGasLimit(t *testing.T) {
	node := &headNode{}
	node.head.Store(16)
	node.gasLimit.Store(30_000_000)
	srv := httptest.NewServer(node) // listens on 127.0.0.1 with an OS-picked port
	defer srv.Close()
	up, err := transport.NewHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	const every = 50 * time.Millisecond
	p := upstream.NewPool("gas", upstream.PoolConfig{HeadInterval: every, ProbeInterval: every}, upstream.MemberConfig{Upstream: up})
	p.Start(context.Background())
	defer p.Close()

	if got := p.GasLimit(); got != 30_000_000 {
		t.Fatalf("first use: %d", got)
	}
	time.Sleep(3 * every)
	if got := p.GasLimit(); got != 30_000_000 || node.asked.Load() != 1 {
		t.Fatalf("same head: %d after %d requests, want one request", got, node.asked.Load())
	}
	node.gasLimit.Store(36_000_000)
	node.head.Store(17)
	testenv.WaitFor(t, 5*time.Second, "the condition", func() bool { return p.GasLimit() == 36_000_000 }) // a new head: refreshed in the background
	node.down.Store(true)
	node.head.Store(18)
	time.Sleep(3 * every)
	if got := p.GasLimit(); got != 36_000_000 {
		t.Fatalf("node down: the last known value should stay, got %d", got)
	}

	cold := upstream.NewPool("cold", upstream.PoolConfig{HeadInterval: every}, upstream.MemberConfig{Upstream: up})
	if got := cold.GasLimit(); got != 0 {
		t.Fatalf("never known: %d, want 0", got)
	}
	before := node.asked.Load()
	cold.GasLimit()
	if node.asked.Load() != before {
		t.Fatalf("a failed fetch is retried at once, not after the head interval")
	}
	node.down.Store(false)
	testenv.WaitFor(t, 5*time.Second, "the condition", func() bool { return cold.GasLimit() == 36_000_000 })
}
