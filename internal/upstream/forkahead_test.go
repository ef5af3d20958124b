package upstream_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// ownForkNode is a node on a chain of its own (fork 3 at every height)
// with its head at n.
func ownForkNode(t *testing.T, name string, n uint64) *forkNode {
	f := newForkNode(t, name, forkBlock{n, 3, 3})
	f.mu.Lock()
	f.own = 3
	f.mu.Unlock()
	return f
}

// TestPoolLeavesOutAMemberOnItsOwnForkAhead: a member whose head is ahead
// of the others' on a chain of its own (its block at their height is
// another) is out of service, its reason naming the height and both
// hashes; the chain is not moved to its fork, and no call goes to it.
func TestPoolLeavesOutAMemberOnItsOwnForkAhead(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	x := newForkNode(t, "x", forkBlock{9, 0, 0})
	p := startForkPool(t, a, b, x)
	a.set(forkBlock{10, 0, 0})
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "a and b at 10", func() bool {
		return p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10
	})
	x.mu.Lock()
	x.head, x.own = forkBlock{14, 3, 3}, 3
	x.mu.Unlock()
	testenv.WaitFor(t, 10*time.Second, "x out of service", func() bool { return !p.Members()[2].Healthy() })
	why := p.Status()[2].LastError
	if !strings.Contains(why, "block 10 ") || !strings.Contains(why, hashOf(10, 3)) || !strings.Contains(why, hashOf(10, 0)) {
		t.Errorf("reason %q does not name height 10 and both hashes", why)
	}
	if h, _ := p.Canonical(10); h.Hex() != hashOf(10, 0) || p.Head() != 10 {
		t.Errorf("the chain moved: head %d, block 10 %s", p.Head(), h.Hex())
	}
	for i := range 30 {
		if m := answeredBy(t, p); m == "x" {
			t.Fatalf("call %d answered by x, on its own fork", i)
		}
	}
}

// TestPoolStartsWithoutAMemberOnItsOwnForkAhead: at start, a member on a
// chain of its own above the others' heads is left out whichever member
// reported first: the chain is the others'.
func TestPoolStartsWithoutAMemberOnItsOwnForkAhead(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	b := newForkNode(t, "b", forkBlock{10, 0, 0})
	x := ownForkNode(t, "x", 14)
	p := startForkPool(t, x, a, b)
	testenv.WaitFor(t, 10*time.Second, "x out of service, the chain a's and b's", func() bool {
		h, _ := p.Canonical(10)
		return !p.Members()[0].Healthy() && h.Hex() == hashOf(10, 0) && p.Head() == 10
	})
	for i := range 30 {
		if m := answeredBy(t, p); m == "x" {
			t.Fatalf("call %d answered by x, on its own fork", i)
		}
	}
}

// TestPoolFollowsAForkOnceAnotherMemberIsOnIt: a reorg to a longer fork
// (its parent not the chain's head) is followed once a second member is
// on it; the member that switched first is back in service then.
func TestPoolFollowsAForkOnceAnotherMemberIsOnIt(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	p := startForkPool(t, a, b)
	a.set(forkBlock{10, 0, 0})
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "a and b at 10", func() bool {
		return p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10
	})
	b.set(forkBlock{11, 1, 1}) // b's block 10 is fork 1's now
	a.set(forkBlock{12, 1, 1})
	testenv.WaitFor(t, 10*time.Second, "the chain on fork 1, both in service", func() bool {
		h, _ := p.Canonical(p.Head())
		return p.Head() == 12 && h.Hex() == hashOf(12, 1) && p.Members()[0].Healthy() && p.Members()[1].Healthy()
	})
}

// TestMemberOnItsOwnForkStaysOutWhileItCannotBeJudged: x, out for its own
// fork ahead, keeps reporting its head; when one of the two members it
// was judged against goes out of service (nothing then tells which chain
// is the odd one), x stays out and is not followed.
func TestMemberOnItsOwnForkStaysOutWhileItCannotBeJudged(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	b := newForkNode(t, "b", forkBlock{10, 0, 0})
	x := ownForkNode(t, "x", 14)
	p := startPool(t, upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval: 10 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour},
		forkMembers(t, x, a, b)...)
	testenv.WaitFor(t, 10*time.Second, "x out of service, the chain a's and b's", func() bool {
		h, _ := p.Canonical(10)
		return !p.Members()[0].Healthy() && h.Hex() == hashOf(10, 0) && p.Head() == 10
	})
	a.srv.Close()
	testenv.WaitFor(t, 10*time.Second, "a out of service", func() bool { return !p.Members()[1].Healthy() })
	// x is polled every 10 ms while out: 50 of its reports at least.
	for i := range 50 {
		if p.Members()[0].Healthy() || p.Head() != 10 {
			t.Fatalf("after %d calls x is back (in service %v), the pool's head %d", i, p.Members()[0].Healthy(), p.Head())
		}
		if m := answeredBy(t, p); m != "b" {
			t.Fatalf("call %d answered by %s, want b", i, m)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
