package upstream

// futureMargin is how far beyond every member's head a call may name a
// block and still be routed as usual (a block one member is about to
// have): the members may reach it while the call is retried. A call naming
// a block further ahead is answered by one member at once (see beyondHeads).
const futureMargin = 2

// beyondHeads reports whether ref names a block further than futureMargin
// beyond the pool's head and every member's (in service or not): no member
// will have it within head_wait, so the call is sent once, to one member
// at the head, and its answer is the answer — go-ethereum's own answer for
// a future block (null for a block, a header or a transaction in it,
// "header not found" for state, "block range extends beyond current head
// block" for logs) — not waited for and not retried on the other members.
func (p *Pool) beyondHeads(ref blockRef) bool {
	if !ref.named || !p.started.Load() {
		return false
	}
	top := p.target()
	for _, m := range p.members {
		top = max(top, m.Head())
	}
	return ref.number > top && ref.number-top > futureMargin
}
