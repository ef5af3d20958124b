package upstream

import (
	"context"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
)

// Below a peer's claim: while another replica's head (c, H) is a pending
// claim (canonclaim.go), this chain does not know where H's branch leaves
// it, so every block below c that can still change (above the pool's
// finalized block, within the window) may be on the branch H replaces.
// The members were polled at once when the claim came (PeerHead); until
// each member in service has reported a head asked for (or pushed) since
// then, or the claim settles or ends, for one HeadInterval at most (a
// member whose poll hangs is not waited for longer than its next poll
// would have come):
//   - a call naming such a block by number, or asking at the head, waits
//     before a member is chosen (awaitClaimBefore): an answer that names
//     no block (a state read, a null transaction, an empty list of logs)
//     cannot be judged once it came;
//   - an answer naming such a block is placed as claimed (canonjudge.go)
//     and waits the same (awaitClaim), then is placed on the chain.
// Then the chain holds what its members have: the claimed branch, when a
// member is on it, with the members on the other branch marked off it.

// claimShadows reports whether block n lies below a pending claim, may
// still change, and a member in service has not reported a head it was
// asked for (or pushed) since the claim came, within a HeadInterval of
// it. Called with the chain's lock held.
func (p *Pool) claimShadows(n uint64, now int64) bool {
	c := p.canon
	top := c.claim.block.Number
	if !c.claimPending(now) || now >= p.belowClaimUntil().UnixNano() ||
		n > top || n+canonWindow <= top || n <= p.Finalized() {
		return false
	}
	for i, s := range c.seen {
		if s.since < c.claim.came && p.members[i].InService() {
			return true
		}
	}
	return false
}

// belowClaimUntil is when the blocks below a pending claim stop waiting
// for it: a HeadInterval after it came, or its end. Called with the
// chain's lock held.
func (p *Pool) belowClaimUntil() time.Time {
	c := p.canon
	return time.Unix(0, min(c.claim.until, c.claim.came+int64(p.cfg.HeadInterval)))
}

// awaitClaimBefore waits, for a call of kind k naming ref (a number, or
// the head: a tag other than safe and finalized, or none), while a
// pending claim shadows its block, until budget at most.
func (p *Pool) awaitClaimBefore(ctx context.Context, k kind, ref blockRef, budget time.Time) {
	if k.Block == methods.BlockNone || ref.tag != tagNone || p.canon.claimUntil.Load() == 0 {
		return
	}
	p.awaitWhile(ctx, budget, func() (bool, time.Time) {
		n := ref.number
		if !ref.named {
			n = p.target()
		}
		c := p.canon
		c.mu.Lock()
		defer c.mu.Unlock()
		return p.claimShadows(n, nowNano()), p.belowClaimUntil()
	})
}
