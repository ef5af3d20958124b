package upstream

import "github.com/ethereum/go-ethereum/common"

// Final reports whether block n, as member (by name) gave it with hash h
// (zero: its answer named no hash), is final for the pool's cache: the
// member is in service and on the canonical branch (canon.go), its own
// finalized block is at or above n, and the canonical chain, when it
// holds n, holds it with h. It returns the hash an entry about n carries:
// the canonical one when the chain holds n, else h.
func (p *Pool) Final(member string, n uint64, h common.Hash) (common.Hash, bool) {
	for _, m := range p.members {
		if m.Name() != member {
			continue
		}
		if !m.Healthy() || m.offBranch.Load() || m.finalized.Load() < n {
			return common.Hash{}, false
		}
		ch, held := p.Canonical(n)
		switch {
		case !held:
			return h, true
		case h != (common.Hash{}) && ch != h:
			return common.Hash{}, false
		}
		return ch, true
	}
	return common.Hash{}, false // not a member (a partner's answer)
}
