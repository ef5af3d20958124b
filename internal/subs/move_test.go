package subs

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// TestMoveBeforeTheFirstHead: a newHeads subscription whose member falls
// behind before it sent anything moves to the member ahead, and the client
// gets every head after the one current when it subscribed, the first
// included.
func TestMoveBeforeTheFirstHead(t *testing.T) {
	nodes := map[string]*evmnode.Node{"x": evmnodetest.Start(t, evmnode.Config{}), "y": evmnodetest.Start(t, evmnode.Config{})}
	var members []upstream.MemberConfig
	for _, name := range []string{"x", "y"} {
		n := nodes[name]
		members = append(members, upstream.MemberConfig{Upstream: transport.NewInProc(upstream.Func{ID: name, Fn: n.Do, Heads: n.SubscribeHeads}, n.Server())})
	}
	pool := upstream.NewPool("test", upstream.PoolConfig{HeadInterval: 50 * time.Millisecond, ProbeInterval: 50 * time.Millisecond}, members...)
	pool.Start(context.Background())
	t.Cleanup(pool.Close)
	h := NewHub(Options{ReviewInterval: 20 * time.Millisecond}, pool)
	t.Cleanup(h.Close)

	r := newRecorder()
	c := h.NewClient(r, 10, nil)
	base := pool.Head()
	subscribe(t, c, `["newHeads"]`)
	first := h.Member()
	other := "y"
	if first == "y" {
		other = "x"
	}
	// Only the other member seals: the first never sends a head, falls
	// behind, and the subscription moves.
	if err := nodes[other].Commit(); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "the subscription to move", func() bool { return h.Member() == other })
	if err := nodes[other].Commit(); err != nil {
		t.Fatal(err)
	}
	if got := r.heads(t, 2); got[0] != base+1 || got[1] != base+2 {
		t.Fatalf("heads %v, want [%d %d]: the head sealed before the move is lost", got, base+1, base+2)
	}
}
