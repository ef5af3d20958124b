package upstream

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// blk is block n of fork f (fork 0 the original chain), whose parent is
// block n-1 of fork pf.
func blk(n uint64, f, pf byte) headBlock {
	return headBlock{Number: n, Hash: common.Hash{0: f, 31: byte(n), 30: byte(n >> 8)}, Parent: common.Hash{0: pf, 31: byte(n - 1), 30: byte((n - 1) >> 8)}}
}

// chainTo is fork 0 from 1 to n.
func chainTo(n uint64) []headBlock {
	var out []headBlock
	for i := uint64(1); i <= n; i++ {
		out = append(out, blk(i, 0, 0))
	}
	return out
}

type canonReport struct {
	member int
	b      headBlock
}

func TestCanonFollowsReorgs(t *testing.T) {
	inService := func(int) bool { return true }
	for _, tc := range []struct {
		name    string
		reports []canonReport       // after members 0 and 1 both reported fork 0 up to 10 (member 0 first: the head member)
		paths   map[int][]headBlock // the blocks read to link a report (canonlink.go), by its index in reports
		down    int                 // a member out of service (-1 none)
		head    headBlock
		move    canonMove // what the last report did
		off     [2]bool   // the members' branches after
		forkAt  uint64    // a height whose canonical hash is checked
		forkIs  common.Hash
	}{
		{name: "on the chain", reports: []canonReport{{0, blk(11, 0, 0)}, {1, blk(11, 0, 0)}},
			down: -1, head: blk(11, 0, 0), move: canonSame, forkAt: 10, forkIs: blk(10, 0, 0).Hash},
		{name: "reorg to a longer fork", reports: []canonReport{{0, blk(10, 1, 0)}, {0, blk(11, 1, 1)}},
			down: -1, head: blk(11, 1, 1), move: canonExtended, off: [2]bool{false, true}, forkAt: 10, forkIs: blk(10, 1, 0).Hash},
		{name: "reorg to an equal fork", reports: []canonReport{{0, blk(10, 1, 0)}},
			down: -1, head: blk(10, 1, 0), move: canonRewound, off: [2]bool{false, true}, forkAt: 9, forkIs: blk(9, 0, 0).Hash},
		{name: "reorg to a shorter fork", reports: []canonReport{{0, blk(9, 1, 0)}},
			down: -1, head: blk(9, 1, 0), move: canonRewound, off: [2]bool{false, true}, forkAt: 8, forkIs: blk(8, 0, 0).Hash},
		{name: "a shorter fork of depth 3", reports: []canonReport{{0, blk(8, 1, 0)}},
			down: -1, head: blk(8, 1, 0), move: canonRewound, off: [2]bool{false, true}, forkAt: 7, forkIs: blk(7, 0, 0).Hash},
		{name: "the other member follows the head member", reports: []canonReport{{0, blk(9, 1, 0)}, {1, blk(9, 1, 0)}},
			down: -1, head: blk(9, 1, 0), move: canonSame, forkAt: 9, forkIs: blk(9, 1, 0).Hash},
		{name: "the old head re-sent does not move the chain back", reports: []canonReport{{0, blk(9, 1, 0)}, {1, blk(10, 0, 0)}},
			down: -1, head: blk(9, 1, 0), move: canonSame, off: [2]bool{false, true}, forkAt: 9, forkIs: blk(9, 1, 0).Hash},
		{name: "a member not at the head on another fork is not followed", reports: []canonReport{{1, blk(10, 1, 0)}},
			down: -1, head: blk(10, 0, 0), move: canonSame, off: [2]bool{false, true}, forkAt: 10, forkIs: blk(10, 0, 0).Hash},
		{name: "a fork of a member is followed once the head member is out", reports: []canonReport{{1, blk(10, 1, 0)}},
			down: 0, head: blk(10, 1, 0), move: canonRewound, off: [2]bool{true, false}, forkAt: 10, forkIs: blk(10, 1, 0).Hash},
		{name: "switching back", reports: []canonReport{{0, blk(10, 1, 0)}, {0, blk(10, 0, 0)}},
			down: -1, head: blk(10, 0, 0), move: canonRewound, forkAt: 10, forkIs: blk(10, 0, 0).Hash},
		{name: "a lagging member's head on the abandoned branch is not followed", reports: []canonReport{{0, blk(10, 1, 0)}, {1, blk(11, 0, 0)}},
			down: -1, head: blk(10, 1, 0), move: canonSame, off: [2]bool{false, true}, forkAt: 10, forkIs: blk(10, 1, 0).Hash},
		{name: "nor its next head on that branch", reports: []canonReport{{0, blk(10, 1, 0)}, {1, blk(11, 0, 0)}, {1, blk(12, 0, 0)}},
			down: -1, head: blk(10, 1, 0), move: canonSame, off: [2]bool{false, true}, forkAt: 10, forkIs: blk(10, 1, 0).Hash},
		{name: "the head member back on the branch it left is followed", reports: []canonReport{{0, blk(10, 1, 0)}, {0, blk(11, 0, 0)}},
			down: -1, head: blk(11, 0, 0), move: canonExtended, off: [2]bool{false, false}, forkAt: 11, forkIs: blk(11, 0, 0).Hash},
		// The path of a head read while the chain was still on fork 0
		// (the test nodes of TestPoolFollowsAForkOnceAnotherMemberIsOnIt
		// give fork 1's block 11 a parent of fork 0); the head extends the
		// chain member 1 moved meanwhile.
		{name: "a head extending the chain is followed whatever its path read before",
			reports: []canonReport{{1, blk(11, 1, 1)}, {0, blk(12, 1, 1)}},
			paths:   map[int][]headBlock{0: {blk(10, 1, 0)}, 1: {blk(10, 0, 0), blk(11, 1, 0)}},
			down:    -1, head: blk(12, 1, 1), move: canonExtended, forkAt: 10, forkIs: blk(10, 1, 0).Hash},
		{name: "back to the fork point (a rewind's re-sent head)", reports: []canonReport{{0, blk(11, 0, 0)}, {0, blk(9, 0, 0)}},
			down: -1, head: blk(9, 0, 0), move: canonRewound, off: [2]bool{false, true}, forkAt: 9, forkIs: blk(9, 0, 0).Hash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCanon(2)
			svc := inService
			if tc.down >= 0 {
				svc = func(i int) bool { return i != tc.down }
			}
			for _, b := range chainTo(10) {
				c.observe(0, b, nil, svc)
				c.observe(1, b, nil, svc)
			}
			var move canonMove
			for x, r := range tc.reports {
				move = c.observe(r.member, r.b, tc.paths[x], svc)
			}
			if c.head != tc.head {
				t.Errorf("head %d %x, want %d %x", c.head.Number, c.head.Hash[:1], tc.head.Number, tc.head.Hash[:1])
			}
			if move != tc.move {
				t.Errorf("last report did %d, want %d", move, tc.move)
			}
			for i, want := range tc.off {
				if got := !c.onBranch(c.seen[i]); got != want {
					t.Errorf("member %d off branch %v, want %v", i, got, want)
				}
			}
			if h, ok := c.at(tc.forkAt); !ok || h != tc.forkIs {
				t.Errorf("at %d: %x %v, want %x", tc.forkAt, h[:1], ok, tc.forkIs[:1])
			}
			if _, ok := c.at(c.head.Number + 1); ok {
				t.Errorf("the window holds a block above its head")
			}
		})
	}
}

// TestCanonWindowIsBounded: the window holds the last canonWindow blocks,
// and a gap restarts it.
func TestCanonWindowIsBounded(t *testing.T) {
	c := newCanon(1)
	in := func(int) bool { return true }
	for _, b := range chainTo(300) {
		c.observe(0, b, nil, in)
	}
	if _, ok := c.at(300 - canonWindow); ok {
		t.Errorf("block %d is still held", 300-canonWindow)
	}
	if h, ok := c.at(300 - canonWindow + 1); !ok || h != blk(300-canonWindow+1, 0, 0).Hash {
		t.Errorf("block %d is not held", 300-canonWindow+1)
	}
	c.observe(0, blk(400, 0, 0), nil, in)
	if _, ok := c.at(300); ok {
		t.Errorf("a block below a gap is held")
	}
	if !c.holds(blk(400, 0, 0)) {
		t.Errorf("the head after a gap is not held")
	}
}

// FuzzCanonWindow: whatever members report, the window is a hash-linked
// chain ending at its head, no longer than canonWindow.
func FuzzCanonWindow(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 2, 0, 1, 3, 1, 0, 2, 1, 2, 1, 1})
	f.Add([]byte{0, 200, 0, 1, 100, 1, 0, 250, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const members = 3
		c := newCanon(members)
		heads := [members]uint64{}
		for len(ops) >= 3 {
			m, step, fork := int(ops[0])%members, uint64(ops[1]), ops[2]%4
			ops = ops[3:]
			n := heads[m] + step%5
			if step >= 128 {
				n = heads[m] - min(heads[m], step%8) // back (a reorg to a shorter chain)
			}
			if step >= 250 {
				n += 300 // a gap
			}
			if n == 0 {
				n = 1
			}
			heads[m] = n
			c.observe(m, blk(n, fork, fork%2), nil, func(i int) bool { return i != int(step%members) })
			if !c.has {
				t.Fatal("no head after a report")
			}
			if c.low > c.head.Number || c.head.Number-c.low >= canonWindow {
				t.Fatalf("window [%d, %d]", c.low, c.head.Number)
			}
			if !c.holds(c.head) {
				t.Fatalf("the head %d is not held", c.head.Number)
			}
			for x := c.low + 1; x <= c.head.Number; x++ {
				s, p := c.slots[x%canonWindow], c.slots[(x-1)%canonWindow]
				if s.Number != x || p.Number != x-1 || s.Parent != p.Hash {
					t.Fatalf("block %d is not linked to %d", x, x-1)
				}
			}
		}
	})
}

// TestCanonLeavesAChainItsHeadMemberAloneWasOn: members 1 and 2 at block
// 10; member 0 reports a head of a chain of its own above theirs, which
// the window restarts at (its parent is not held), so their heads, below
// the window, are no longer judged off the chain. Once member 0 is out,
// the same head of member 1 again moves the chain back to theirs.
func TestCanonLeavesAChainItsHeadMemberAloneWasOn(t *testing.T) {
	c := newCanon(3)
	out := -1
	svc := func(i int) bool { return i != out }
	for _, b := range chainTo(10) {
		c.observe(1, b, nil, svc)
		c.observe(2, b, nil, svc)
	}
	if move := c.observe(0, blk(14, 3, 3), nil, svc); move != canonExtended || c.head != blk(14, 3, 3) {
		t.Fatalf("member 0's head: move %d, head %d %x", move, c.head.Number, c.head.Hash[:1])
	}
	if move := c.observe(1, blk(10, 0, 0), nil, svc); move != canonSame {
		t.Fatalf("member 1's same head while member 0 is in service: move %d, want none", move)
	}
	out = 0
	if move := c.observe(1, blk(10, 0, 0), nil, svc); move != canonRewound || c.head != blk(10, 0, 0) {
		t.Fatalf("member 1's same head once member 0 is out: move %d, head %d %x, want a rewind to its 10", move, c.head.Number, c.head.Hash[:1])
	}
}

// TestCanonKeepsItsChainWhenItsHeadMemberGoesOut: the head member going
// out of service leaves the chain to another member at its head; a
// lagging member's head below the window, reported again, does not take
// the chain back to it (a killed node made latest go 13 blocks back).
func TestCanonKeepsItsChainWhenItsHeadMemberGoesOut(t *testing.T) {
	c := newCanon(3)
	out := -1
	svc := func(i int) bool { return i != out }
	head := blk(54, 0, 0)
	c.observe(0, head, nil, svc) // the window starts at 54
	c.observe(1, head, nil, svc)
	lagging := blk(41, 0, 0)
	if move := c.observe(2, lagging, nil, svc); move != canonSame {
		t.Fatalf("the lagging member's head: move %d, want none", move)
	}
	out = 0
	for range 3 {
		if move := c.observe(2, lagging, nil, svc); move != canonSame || c.head != head {
			t.Fatalf("the lagging member's same head once the head member is out: move %d, head %d, want 54 kept", move, c.head.Number)
		}
	}
	if c.by != 1 {
		t.Fatalf("head member %d, want 1 (in service, at the head)", c.by)
	}
}

// TestCanonFollowsABranchItLeftOnceItOutgrowsTheHead: a member on a branch
// the chain left is a lagging member of it up to abandonedReach blocks
// above the chain's head, not followed; past that the branch went on
// growing while the head member stopped, and it is followed.
func TestCanonFollowsABranchItLeftOnceItOutgrowsTheHead(t *testing.T) {
	c := newCanon(2)
	svc := func(int) bool { return true }
	for _, b := range chainTo(10) {
		c.observe(0, b, nil, svc)
		c.observe(1, b, nil, svc)
	}
	c.observe(0, blk(11, 1, 0), nil, svc)
	if move := c.observe(0, blk(11, 2, 0), nil, svc); move != canonRewound {
		t.Fatalf("the head member's switch to fork 2: move %d, want a rewind", move)
	}
	for n := uint64(12); n <= 11+abandonedReach; n++ {
		if move := c.observe(1, blk(n, 1, 1), nil, svc); move != canonSame || c.head != blk(11, 2, 0) {
			t.Fatalf("member 1's %d on the fork left, %d above the head: move %d, head %d %x, want none", n, n-11, move, c.head.Number, c.head.Hash[:1])
		}
	}
	n := uint64(12 + abandonedReach)
	if move := c.observe(1, blk(n, 1, 1), nil, svc); move != canonExtended || c.head != blk(n, 1, 1) {
		t.Fatalf("member 1's %d, %d above the head: move %d, head %d %x, want it followed", n, n-11, move, c.head.Number, c.head.Hash[:1])
	}
}
