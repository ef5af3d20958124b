package upstream

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/jsonrpc"
)

// A peer's claim: another replica of the fleet gave a client block N with
// hash H (fleethead.go, PeerHead), and this pool's chain does not hold H
// at N (it holds another block there, or none yet: its members' heads are
// read later than that replica's were). Until the chain holds H at N, or
// the claim is superseded (a newer peer head at or above N, any peer
// rewind, this chain going back below N or rising above it on another
// branch) or HeadWait passed since it came,
// H is taken as the canonical block at N:
//   - an answer naming block N with another hash waits (up to the claim's
//     end and the call's retry budget) for the chain to hold H at N — the
//     members were polled at once when the claim came — and is then a lag
//     answer, off the chain, asked of a member on it (canonjudge.go:
//     placeClaimed); still unsettled when the wait ends, it is a lag
//     answer all the same — so a client moving between replicas is not
//     given another block N than the one it was just given;
//   - a member's head that is H at N, or that its blocks read down to the
//     chain (canonlink.go) link through H at N, is followed as the head
//     member's would be (canon.go), also when it is at or below the
//     chain's head: the chain goes to the branch the fleet already gave.
//
// A claim whose block left this chain lately (canongone.go) is not taken:
// this pool saw the fleet leave it. The claim lives in the chain, under
// its lock, which judging an answer takes anyway: no Redis round trip and
// no allocation per call.

// peerClaim is a pending claim (until 0: none).
type peerClaim struct {
	block headBlock // Number and Hash (no parent)
	until int64     // unix ns
	came  int64     // unix ns
}

// setClaim makes pc the chain's claim (the zero claim: none).
func (c *canon) setClaim(pc peerClaim) {
	c.claim = pc
	c.claimUntil.Store(pc.until)
}

// claimPending reports whether the claim still stands at now (unix ns).
func (c *canon) claimPending(now int64) bool {
	return c.claim.until != 0 && now < c.claim.until
}

// claimDisagrees reports whether block n with hash h is another block at
// the height of a pending claim.
func (c *canon) claimDisagrees(n uint64, h common.Hash) bool {
	return c.claim.until != 0 && n == c.claim.block.Number && h != c.claim.block.Hash && c.claimPending(nowNano())
}

// claimed reports whether member head b, with path linking it to the
// chain, carries a pending claim's block: the chain follows it.
func (c *canon) claimed(b headBlock, path []headBlock) bool {
	if !c.claimPending(nowNano()) || b.Number < c.claim.block.Number {
		return false
	}
	if b.Hash == c.claim.block.Hash {
		return true
	}
	for _, x := range path {
		if x.Number == c.claim.block.Number && x.Hash == c.claim.block.Hash {
			return true
		}
	}
	return false
}

// claimWants reports whether member head b, not held by the chain, may
// carry a pending claim's block: its blocks down to the chain are read
// (canonlink.go).
func (c *canon) claimWants(b headBlock) bool {
	return c.claimPending(nowNano()) && b.Number >= c.claim.block.Number
}

// takeClaim records a peer's head (n, h) against the chain; rewound, the
// peer's chain went back to it. A head below a pending claim's (an older
// one, not a rewind) leaves the claim as it is; any other replaces it,
// and is a claim itself when the chain does not hold it.
func (c *canon) takeClaim(n uint64, h common.Hash, rewound bool, wait time.Duration) {
	now := nowNano()
	if c.claimPending(now) && !rewound && n < c.claim.block.Number {
		return
	}
	c.setClaim(peerClaim{})
	if !c.has || n < c.low || c.gone.has(h) || c.holds(headBlock{Number: n, Hash: h}) {
		return
	}
	c.setClaim(peerClaim{block: headBlock{Number: n, Hash: h}, until: now + int64(wait), came: now})
}

// settleClaim drops a claim the chain now holds, one that expired, one
// above a head the chain went back to, and one the chain passed on
// another branch (its head rose above the claim's height without it: the
// chain's own members are past it).
func (c *canon) settleClaim(move canonMove) {
	switch {
	case c.claim.until == 0:
	case !c.claimPending(nowNano()), c.holds(c.claim.block),
		move == canonRewound && c.head.Number < c.claim.block.Number,
		move == canonExtended && c.head.Number > c.claim.block.Number:
		c.setClaim(peerClaim{})
	}
}

// awaitClaim waits, for an answer naming another block than a pending
// claim's at its height, until the chain holds the claim or drops it (the
// members were polled at once when it came: PeerHead), the claim ends or
// budget passes, and places the answer again.
func (p *Pool) awaitClaim(ctx context.Context, budget time.Time, k kind, params json.RawMessage, resp *jsonrpc.Response) (n uint64, place answerPlace) {
	p.awaitWhile(ctx, budget, func() (bool, time.Time) {
		if n, place = p.placeAnswer(k, params, resp); place != placeClaimed {
			return false, time.Time{}
		}
		c := p.canon
		c.mu.Lock()
		defer c.mu.Unlock()
		if n < c.claim.block.Number {
			return true, p.belowClaimUntil() // canonbelow.go
		}
		return true, time.Unix(0, c.claim.until)
	})
	return n, place
}
