package reorgtest

import "github.com/ethereum/go-ethereum/common"

// view is what one client was given: the newest branch (generation) of
// any block named to it.
type view struct {
	tree   *Tree
	maxGen int
}

// saw judges an answer naming block hash: false when it names a block
// abandoned by a fork whose branch (or a later one) the client was
// already given, or a block the builder never made (unknown).
func (v *view) saw(hash common.Hash) (ok, unknown bool) {
	b := v.tree.Of(hash)
	if !b.Known {
		return true, true
	}
	ok = b.AbandonedBy == 0 || b.AbandonedBy > v.maxGen
	v.maxGen = max(v.maxGen, b.Gen)
	return ok, false
}
