package upstream_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// hangable serves a chainNode, or answers 503 while down (a node out of
// service).
type hangable struct {
	n    *chainNode
	down atomic.Bool
	srv  *httptest.Server
}

func newHangable(t *testing.T, n *chainNode) *hangable {
	h := &hangable{n: n}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		n.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// TestPoolResendsMissedWrites: transactions broadcast while a member was
// out of service reach it, in order, once it is back; "already known"
// counts as taken (nothing is sent again after it).
func TestPoolResendsMissedWrites(t *testing.T) {
	raws := signedTxs(t, 3)
	a := newChainNode(t, 10)
	b := newHangable(t, newChainNode(t, 10))
	p := startPool(t, upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, ProbeInterval: 20 * time.Millisecond},
		httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	b.down.Store(true)
	testenv.WaitFor(t, 5*time.Second, "b out of service", func() bool { return !p.Members()[1].InService() })
	for _, raw := range raws[:2] {
		if got := send(t, p, "eth_sendRawTransaction", `["`+raw+`"]`, false); got.Err != nil {
			t.Fatalf("send while b is out: %v", got.Err)
		}
	}
	// b already has the third one (it got it from a peer).
	b.n.mu.Lock()
	b.n.sent[raws[2]] = true
	b.n.mu.Unlock()
	if got := send(t, p, "eth_sendRawTransaction", `["`+raws[2]+`"]`, false); got.Err != nil {
		t.Fatalf("send while b is out: %v", got.Err)
	}
	if b.n.has(raws[0]) || b.n.has(raws[1]) {
		t.Fatal("b got a transaction while out of service")
	}
	b.down.Store(false)
	testenv.WaitFor(t, 10*time.Second, "b to be sent the transactions it missed", func() bool { return b.n.count("eth_sendRawTransaction") >= 3 })
	if !b.n.has(raws[0]) || !b.n.has(raws[1]) {
		t.Fatal("b was sent three transactions, not the two it missed")
	}
	polls := b.n.count("eth_getBlockByNumber") + b.n.count("eth_blockNumber")
	testenv.WaitFor(t, 5*time.Second, "a few head polls of b", func() bool {
		return b.n.count("eth_getBlockByNumber")+b.n.count("eth_blockNumber") >= polls+5
	})
	sent := b.n.count("eth_sendRawTransaction")
	if sent != 3 {
		t.Fatalf("b was sent %d transactions, want 3 (each it missed once, the known one once)", sent)
	}
	// Out and back again: nothing is left to send (taken, or "already known").
	b.down.Store(true)
	testenv.WaitFor(t, 5*time.Second, "b out of service again", func() bool { return !p.Members()[1].InService() })
	b.down.Store(false)
	testenv.WaitFor(t, 5*time.Second, "b back", func() bool { return p.Members()[1].InService() })
	polls = b.n.count("eth_getBlockByNumber") + b.n.count("eth_blockNumber")
	testenv.WaitFor(t, 5*time.Second, "a few head polls of b", func() bool {
		return b.n.count("eth_getBlockByNumber")+b.n.count("eth_blockNumber") >= polls+5
	})
	if got := b.n.count("eth_sendRawTransaction"); got != sent {
		t.Fatalf("b was sent %d transactions after it came back again, want %d", got, sent)
	}
}
