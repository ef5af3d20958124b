package upstream_test

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// setFork makes the node's head b and its blocks below b's parent those
// of fork own.
func (f *forkNode) setFork(b forkBlock, own byte) {
	f.mu.Lock()
	f.head, f.own = b, own
	f.mu.Unlock()
}

// TestPoolLinksAForkHeadToTheChain: a member reports the head of a fork
// two blocks past the fork point (the pool never saw the fork's first
// block: go-ethereum pushes only the head it sets, a poll sees only the
// head): the pool reads the blocks between from that member and links
// the head to the chain, so that the other member, still on the old
// branch at 10, is on another branch — not "on the chain" below a window
// that restarted at the fork's head — and is not asked until it switches.
func TestPoolLinksAForkHeadToTheChain(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	p := startForkPool(t, a, b)
	a.set(forkBlock{10, 0, 0})
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "both at 10", func() bool {
		return p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10
	})
	a.setFork(forkBlock{11, 1, 1}, 1) // 11/1 on 10/1 on 9/0
	testenv.WaitFor(t, 10*time.Second, "the pool's head to follow a to 11", func() bool { return p.Head() == 11 })
	if h, ok := p.Canonical(10); !ok || h.Hex() != hashOf(10, 1) {
		t.Fatalf("canonical 10: %s %v, want fork 1's (linked by reading a's block 10)", h.Hex(), ok)
	}
	if h, ok := p.Canonical(9); !ok || h.Hex() != hashOf(9, 0) {
		t.Errorf("canonical 9: %s %v, want fork 0's (the fork point)", h.Hex(), ok)
	}
	for i := range 50 {
		if m := answeredBy(t, p); m != "a" {
			t.Fatalf("call %d answered by %s, still on the abandoned branch", i, m)
		}
	}
	b.setFork(forkBlock{11, 1, 1}, 1)
	testenv.WaitFor(t, 10*time.Second, "b to be chosen again once on the fork", func() bool { return answeredBy(t, p) == "b" })
}
