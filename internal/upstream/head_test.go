package upstream

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// headNode is a real HTTP server on loopback whose head block's gas limit
// the test sets; down makes it answer 503.
type headNode struct {
	gasLimit atomic.Uint64
	down     atomic.Bool
	asked    atomic.Int64
}

func (n *headNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	n.asked.Add(1)
	if n.down.Load() || !strings.Contains(string(body), `"eth_getBlockByNumber","params":["latest",false]`) {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"number":"0x10","gasLimit":"0x%x","hash":"0x00"}}`, n.gasLimit.Load())
}

func TestHeadGasLimit(t *testing.T) {
	node := &headNode{}
	node.gasLimit.Store(30_000_000)
	srv := httptest.NewServer(node) // listens on 127.0.0.1 with an OS-picked port
	defer srv.Close()
	up, err := NewHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	const every = 50 * time.Millisecond
	h := NewHead(up, every)

	if got := h.GasLimit(); got != 30_000_000 {
		t.Fatalf("first use: %d", got)
	}
	if got := h.GasLimit(); got != 30_000_000 || node.asked.Load() != 1 {
		t.Fatalf("within the period: %d after %d requests", got, node.asked.Load())
	}
	node.gasLimit.Store(36_000_000)
	waitFor(t, func() bool { return h.GasLimit() == 36_000_000 }) // refreshed after the period, in the background
	node.down.Store(true)
	time.Sleep(2 * every)
	if got := h.GasLimit(); got != 36_000_000 {
		t.Fatalf("node down: the last known value should stay, got %d", got)
	}

	cold := NewHead(up, every)
	if got := cold.GasLimit(); got != 0 {
		t.Fatalf("never known: %d, want 0", got)
	}
	before := node.asked.Load()
	cold.GasLimit()
	if node.asked.Load() != before {
		t.Fatalf("a failed fetch is retried at once, not after the period")
	}
	node.down.Store(false)
	waitFor(t, func() bool { return cold.GasLimit() == 36_000_000 })
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
