package upstream_test

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestPoolReadsTheHeadOfAMemberAheadOfTheChain: heads are polled once an
// hour; the preferred member moves to a fork one block longer than the
// chain (11 on 10 of fork 1) and answers a receipt in its new head, above
// the chain's head. The pool reads that member's head again, the chain
// follows it (linked down to the fork point), and the answer is given as
// the chain's, not an answer the chain cannot place.
func TestPoolReadsTheHeadOfAMemberAheadOfTheChain(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0}) // preferred
	b := newForkNode(t, "b", forkBlock{10, 0, 0})
	members := forkMembers(t, a, b)
	members[1].Priority = 1
	p := startPool(t, upstream.PoolConfig{
		HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval:    time.Hour, LagMemory: time.Hour, HeadWait: time.Hour,
	}, members...)
	testenv.WaitFor(t, 10*time.Second, "the chain at 10", func() bool { return p.Head() == 10 })
	a.setFork(forkBlock{11, 1, 1}, 1) // 11/1 on 10/1 on 9/0
	if h, from := receiptFrom(t, p); from != "a" || h != hashOf(11, 1) {
		t.Fatalf("a receipt in %s from %s, want a's new head", h, from)
	}
	if h, ok := p.Canonical(11); !ok || h.Hex() != hashOf(11, 1) {
		t.Fatalf("canonical 11: %s %v, want fork 1's (a's head read again)", h.Hex(), ok)
	}
	if h, ok := p.Canonical(10); !ok || h.Hex() != hashOf(10, 1) {
		t.Errorf("canonical 10: %s %v, want fork 1's", h.Hex(), ok)
	}
}
