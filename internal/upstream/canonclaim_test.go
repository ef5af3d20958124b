package upstream

import (
	"testing"
	"time"
)

// TestCanonFollowsAPeersClaim: members 0 and 1 both reported fork 0 up to
// 10 (member 0 first: the head member); another replica's head is a
// claim the chain takes or not, and the reports after it move the chain
// to the claimed block or leave it.
func TestCanonFollowsAPeersClaim(t *testing.T) {
	inService := func(int) bool { return true }
	type peerHead struct {
		b       headBlock
		rewound bool
	}
	for _, tc := range []struct {
		name    string
		before  []canonReport // reports before the peer's heads
		peers   []peerHead
		reports []canonReport
		paths   map[int][]headBlock // by index in reports
		head    headBlock
		pending bool // a claim still stands at the end
	}{
		{name: "a member on the claimed block is followed",
			peers: []peerHead{{blk(10, 1, 0), true}}, reports: []canonReport{{1, blk(10, 1, 0)}},
			head: blk(10, 1, 0)},
		{name: "also when it reported it before the claim came",
			before: []canonReport{{1, blk(10, 1, 0)}},
			peers:  []peerHead{{blk(10, 1, 0), true}}, reports: []canonReport{{1, blk(10, 1, 0)}},
			head: blk(10, 1, 0)},
		{name: "a head on the claimed branch, at the chain's height, is followed by its path",
			before: []canonReport{{0, blk(11, 0, 0)}},
			peers:  []peerHead{{blk(10, 1, 0), true}}, reports: []canonReport{{1, blk(11, 1, 1)}},
			paths: map[int][]headBlock{0: {blk(10, 1, 0)}},
			head:  blk(11, 1, 1)},
		{name: "without a claim the member stays on another branch",
			reports: []canonReport{{1, blk(10, 1, 0)}},
			head:    blk(10, 0, 0)},
		{name: "a member on another block than the claim's is not followed",
			peers: []peerHead{{blk(10, 1, 0), true}}, reports: []canonReport{{1, blk(10, 2, 0)}},
			head: blk(10, 0, 0), pending: true},
		{name: "a claim the chain holds is none",
			peers: []peerHead{{blk(10, 0, 0), false}},
			head:  blk(10, 0, 0)},
		{name: "a claim of a block the chain left is not taken",
			before: []canonReport{{0, blk(10, 1, 0)}, {0, blk(10, 0, 0)}},
			peers:  []peerHead{{blk(10, 1, 0), true}}, reports: []canonReport{{1, blk(10, 1, 0)}},
			head: blk(10, 0, 0)},
		{name: "an older peer head leaves the claim",
			peers: []peerHead{{blk(10, 1, 0), true}, {blk(9, 0, 0), false}},
			head:  blk(10, 0, 0), pending: true},
		{name: "a peer's rewind replaces it",
			peers: []peerHead{{blk(10, 1, 0), true}, {blk(9, 0, 0), true}}, reports: []canonReport{{1, blk(10, 1, 0)}},
			head: blk(10, 0, 0)},
		{name: "the chain rising above it on another branch drops it",
			peers: []peerHead{{blk(10, 1, 0), true}}, reports: []canonReport{{0, blk(11, 0, 0)}, {1, blk(10, 1, 0)}},
			head: blk(11, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCanon(2)
			for _, b := range chainTo(10) {
				c.observe(0, b, nil, inService)
				c.observe(1, b, nil, inService)
			}
			for _, r := range tc.before {
				c.settleClaim(c.observe(r.member, r.b, nil, inService))
			}
			for _, ph := range tc.peers {
				c.takeClaim(ph.b.Number, ph.b.Hash, ph.rewound, time.Hour)
			}
			for x, r := range tc.reports {
				c.settleClaim(c.observe(r.member, r.b, tc.paths[x], inService))
			}
			if c.head != tc.head {
				t.Errorf("head %d %x, want %d %x", c.head.Number, c.head.Hash[:1], tc.head.Number, tc.head.Hash[:1])
			}
			if got := c.claimPending(nowNano()); got != tc.pending {
				t.Errorf("claim pending %v, want %v", got, tc.pending)
			}
		})
	}
}
