package upstream

// Stale word of a head after a rewind: a member's head is raised by what
// it proves between two reports — an answer naming block N (learn,
// head.go), a poll's head read while a newer report came (reportBlock),
// a head a subscription hub delivered (SawHead, head.go) — and heads only
// rise. After the chain rewound to a shorter fork, such word read before
// the rewind but taken after it would raise the member back to the
// abandoned height: the pool's mark follows it, the fleet is told of a
// head no member has (fleethead.go), and the other replicas' calls at the
// head wait for a member to reach it until the next block (the likely
// cause, not traced, of two calls that waited 292 ms for a head no member
// had in a fleet harness run). So the raise is taken under the chain's
// lock, where a rewind lowers the members' heads, and is dropped when the
// word is stale:
//   - an answer's proven head above the chain's head, when the chain
//     reorganised since the call was sent (reorgs moved: a block, or a
//     bare head number such as eth_blockNumber's, read before the rewind);
//   - a poll's head block, or a subscription hub's head (SawHead), that
//     left the chain (canongone.go).
// Word that names a block the chain holds, or a height no reorganisation
// touched, raises the head as before; the chain's lock is taken only when
// the head would rise (a new block proven before its push), not on the
// way of every answer.

// reorgsSeen is the count of the chain's reorganisations so far: read
// when a call is sent, it tells learn whether the chain moved under the
// answer.
func (p *Pool) reorgsSeen() uint64 { return p.canon.reorgs.Load() }

// raiseProven raises m's head to n, the head proven by an answer to a
// call sent when reorgs reorganisations had been seen. It reports whether
// the word was stale (the chain reorganised since and n is above its head
// now): then nothing was raised.
func (p *Pool) raiseProven(m *Member, n, reorgs uint64) (stale bool) {
	return p.raiseUnless(m, n, func(c *canon) bool {
		return c.reorgs.Load() != reorgs && c.has && n > c.head.Number
	})
}

// raiseSeen raises m's head to b, a head m reported that a newer report
// overtook (its block may be older) or a hub delivered, unless b left the
// chain.
func (p *Pool) raiseSeen(m *Member, b headBlock) {
	p.raiseUnless(m, b.Number, func(c *canon) bool { return c.left(b.Number, b.Hash) })
}

// raiseUnless raises m's head to n under the chain's lock, where a rewind
// lowers the members' heads, unless stale (asked under it) finds the
// word stale; it reports whether it did. The lock is taken only when the
// head would rise.
func (p *Pool) raiseUnless(m *Member, n uint64, stale func(c *canon) bool) (wasStale bool) {
	if n <= m.head.Load() {
		return false
	}
	c := p.canon
	c.mu.Lock()
	wasStale = stale(c)
	raised := !wasStale && storeMax(&m.head, n)
	c.mu.Unlock()
	if raised {
		p.signal()
	}
	return wasStale
}
