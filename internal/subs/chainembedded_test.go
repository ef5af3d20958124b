package subs

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// TestChainHeadsOverTheEmbeddedNode: on a pool that keeps the canonical
// chain by hash and whose only member is the embedded node (it pushes its
// heads), newHeads is made from the chain and every block comes, once, in
// order, promptly after the node made it (the embedded node pushes head
// numbers only: the chain learns their hashes too).
func TestChainHeadsOverTheEmbeddedNode(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	in := transport.NewInProc(upstream.Func{ID: "embedded", Fn: n.Do, Heads: n.SubscribeHeads}, n.Server())
	pool := upstream.NewPool("test", upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber", HeadInterval: time.Hour,
		ProbeInterval: 50 * time.Millisecond}, upstream.MemberConfig{Upstream: in})
	pool.Start(context.Background())
	t.Cleanup(pool.Close)
	h := NewHub(Options{}, pool)
	t.Cleanup(h.Close)
	r := newRecorder()
	c := h.NewClient(r, 10, nil)
	base := n.Ethereum().BlockChain().CurrentBlock().Number.Uint64()
	subscribe(t, c, `["newHeads"]`)
	for range 5 {
		_ = n.Commit()
		r.heads(t, 1) // within 60 s (a loaded CI machine), though no head poll comes for an hour
	}
	got := r.heads(t, 0)
	for i, num := range got {
		if num != base+uint64(i+1) {
			t.Fatalf("heads %v: want %d..%d, each once", got, base+1, base+5)
		}
	}
	if len(got) != 5 {
		t.Fatalf("heads %v: want 5", got)
	}
}
