package reorgtest

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestViewJudgesAbandonedBlocks: a client given a block of a fork's new
// branch may not be given a block that fork abandoned; before that, the
// old branch is still a lagging node's honest answer.
func TestViewJudgesAbandonedBlocks(t *testing.T) {
	h := func(b byte) common.Hash { return common.Hash{b} }
	tree := newTree()
	tree.add(h(0), common.Hash{}, 0, 0, nil, nil)
	tree.add(h(1), h(0), 1, 0, nil, nil)
	tree.add(h(2), h(1), 2, 0, nil, nil)  // A2
	tree.add(h(3), h(2), 3, 0, nil, nil)  // A3
	tree.abandon(1, 1)                    // fork 1 at block 1: A2, A3 abandoned
	tree.add(h(12), h(1), 2, 1, nil, nil) // B2
	tree.abandon(1, 2)                    // fork 2 at block 1 again: B2 abandoned
	tree.add(h(22), h(1), 2, 2, nil, nil) // C2
	for _, tc := range []struct {
		name    string
		given   []common.Hash // in order
		wantBad int
		unknown int
	}{
		{"the old branch before the new one is honest lag", []common.Hash{h(2), h(3), h(12)}, 0, 0},
		{"the old branch after the new one is a flip-back", []common.Hash{h(12), h(3)}, 1, 0},
		{"a common ancestor after the new branch is fine", []common.Hash{h(22), h(1)}, 0, 0},
		{"a block abandoned by a later fork than the one given is lag", []common.Hash{h(12), h(2), h(22)}, 1, 0},
		{"after the newest branch every older one is a flip-back", []common.Hash{h(22), h(12), h(3)}, 2, 0},
		{"a block no one made is unknown, not a flip-back", []common.Hash{h(22), h(99)}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := view{tree: tree}
			bad, unknown := 0, 0
			for _, g := range tc.given {
				ok, u := v.saw(g)
				if !ok {
					bad++
				}
				if u {
					unknown++
				}
			}
			if bad != tc.wantBad || unknown != tc.unknown {
				t.Errorf("flip-backs %d unknown %d, want %d and %d", bad, unknown, tc.wantBad, tc.unknown)
			}
		})
	}
	if !tree.Ancestor(h(1), h(22)) || tree.Ancestor(h(2), h(22)) {
		t.Error("Ancestor: block 1 is C2's ancestor, A2 is not")
	}
	if got, _ := tree.Canonical(2); got != h(22) {
		t.Errorf("canonical block 2 %s, want C2", got)
	}
	if _, ok := tree.Canonical(3); ok {
		t.Error("block 3 left the canonical chain with the fork")
	}
}
