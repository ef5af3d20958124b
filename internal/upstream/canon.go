package upstream

import (
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
)

// The pool's canonical chain, by hash: a hash-linked window of the last
// canonWindow blocks, built from the heads members report with their hash
// and parent hash (polls of the head block, newHeads pushes; families
// whose members give a head by hash: PoolConfig.HeadBlockMethod).
//
// The chain follows the members' heads as a node follows its consensus
// client: a member's new head above the canonical head becomes the head
// (a longer chain, a fork or not); a new head at or below it that the
// canonical chain does not hold is followed when the member that last
// moved the head (the head member) reports it, or when that member is out
// of service — the chain reorganised to an equal or shorter fork — and
// otherwise marks the member as on another branch — unless it carries the
// block another replica of the fleet gave at that height (canonclaim.go);
// a block of the chain
// below the head, reported by the head member, is the chain going back to
// it (a rewind's fork point). A report older than one the member already
// made (a poll answered after a push, or after another read of its head,
// that came while it was asked; or any report overtaken while the blocks
// linking it were read) is dropped: it only raises the member's head,
// never lowers it nor moves the chain. A member on another
// branch (its last head is not the canonical block at its height, or is
// above the canonical head after the chain went back) is not chosen
// (choose.go) and its head does not count as the pool's, until it reports
// a head on the canonical chain.

// canonWindow is how many recent blocks the canonical chain holds.
const canonWindow = 128

// headBlock is a head a member reported: its number, hash and parent hash.
type headBlock struct {
	Number       uint64
	Hash, Parent common.Hash
	// asked: for a poll's answer, the member's count of reports when the
	// poll was sent, plus one (0: a push).
	asked uint64
	// since: when the head was asked for (a poll) or came (a push), unix ns.
	since int64
}

// canon is the pool's canonical chain.
type canon struct {
	mu    sync.Mutex
	slots [canonWindow]headBlock // block n at n % canonWindow
	low   uint64                 // lowest number of the window linked to head
	head  headBlock
	has   bool
	by    int         // the head member's index (-1: none)
	seen  []headBlock // each member's last reported head (zero: none)
	// confirmed: another member than the head member reported a block of
	// the chain (forkahead.go).
	confirmed bool
	// gone are the blocks that left the chain lately (canongone.go);
	// leftFrom, when leftAny, the lowest height whose block left it at
	// the last report.
	gone     goneBlocks
	leftFrom uint64
	leftAny  bool
	// claim is a head another replica gave that the chain does not hold
	// yet (canonclaim.go); claimUntil mirrors its until for a look
	// without the lock (canonbelow.go).
	claim      peerClaim
	claimUntil atomic.Int64
	// reorgs counts the chain's reorganisations (written under mu, read
	// without it: canonstale.go); the pool's epoch moves at them and at
	// peer claims too, which make no word stale.
	reorgs atomic.Uint64
}

func newCanon(members int) *canon {
	return &canon{by: -1, seen: make([]headBlock, members)}
}

// canonMove is what a member's report did to the canonical chain.
type canonMove int

const (
	canonSame     canonMove = iota // nothing: the report is not new, or not followed
	canonExtended                  // the head rose (on its chain or to a longer fork)
	canonRewound                   // the chain reorganised to an equal or shorter fork
)

// observe records member i's head b; path, when not empty, is the
// blocks between the chain and b, lowest first (canonlink.go); inService
// tells whether a member may be followed. It returns what the report did
// to the chain.
func (c *canon) observe(i int, b headBlock, path []headBlock, inService func(int) bool) canonMove {
	if b.Hash == (common.Hash{}) || i < 0 || i >= len(c.seen) {
		return canonSame
	}
	prev := c.seen[i]
	c.seen[i] = b
	c.leftAny = false
	headOut := !c.adoptHead(inService)
	if prev.Hash == b.Hash && (i == c.by || !headOut || c.holds(b)) && !c.claimed(b, path) {
		// The same head again: judged again only when the head member is
		// out (also a head below the window: the chain the head member
		// left the others on may be its own), or it carries a peer's claim.
		return canonSame
	}
	if i != c.by && !headOut && c.abandoned(b, path) {
		return canonSame // canongone.go: a lagging member on a branch the chain left
	}
	switch {
	case !c.has || b.Number > c.head.Number:
		if !c.extend(b, path) && i != c.by {
			// Another member's head the window restarted at: what
			// confirmed the chain before is not of this one (forkahead.go).
			c.confirmed = false
		}
		c.by = i
		return canonExtended
	case c.holds(b) && (i != c.by || b.Number == c.head.Number):
		return canonSame // on the canonical chain, at or below its head
	case c.holds(b):
		c.leave(b.Number + 1)
		c.put(b) // the head member went back to a block of the chain (a rewind's fork point)
		return canonRewound
	case i == c.by:
		c.rewind(b, path)
		return canonRewound
	case c.claimed(b, path):
		// canonclaim.go: the branch another replica already gave.
		c.rewind(b, path)
		c.by = i
		return canonRewound
	case headOut:
		// Another member's branch while the head member is out: the
		// blocks it leaves are not known abandoned (canongone.go).
		gone := c.gone
		c.rewind(b, path)
		c.gone, c.by = gone, i
		return canonRewound
	}
	return canonSame // another branch than the head member's
}

// adoptHead reports whether the chain has a head member in service:
// when the head member is out, another member in service whose last head
// is the chain's head becomes the head member (the chain is still one a
// member in service is on, and a head the window cannot judge — a
// lagging member's, below the window — must not take it back).
func (c *canon) adoptHead(inService func(int) bool) bool {
	if c.by >= 0 && inService(c.by) {
		return true
	}
	for j, s := range c.seen {
		if c.has && s.Hash == c.head.Hash && inService(j) {
			c.by = j
			return true
		}
	}
	return false
}

// extend makes b, above the head, the head; false when the window
// restarted at b (it did not link to the chain).
func (c *canon) extend(b headBlock, path []headBlock) bool {
	linked := true
	switch {
	case c.has && b.Number == c.head.Number+1 && b.Parent == c.head.Hash:
	case c.has && c.link(b, path):
	default:
		c.low, linked = b.Number, false // a gap or a fork whose parent is not held: the window restarts at b
	}
	c.put(b)
	return linked
}

// rewind makes b, at or below the head, the head: blocks above it leave
// the chain, and b replaces the block at its height.
func (c *canon) rewind(b headBlock, path []headBlock) {
	if p, ok := c.at(b.Number - 1); ok && b.Number > 0 && p == b.Parent {
		c.leave(b.Number)
	} else if !c.link(b, path) {
		c.leave(b.Number)
		c.low = b.Number
	}
	c.put(b)
}

func (c *canon) put(b headBlock) {
	c.slots[b.Number%canonWindow] = b
	c.head, c.has = b, true
	if b.Number >= canonWindow && c.low < b.Number-canonWindow+1 {
		c.low = b.Number - canonWindow + 1
	}
}

// at is the canonical block's hash at n, when the window holds it.
func (c *canon) at(n uint64) (common.Hash, bool) {
	if !c.has || n < c.low || n > c.head.Number {
		return common.Hash{}, false
	}
	s := c.slots[n%canonWindow]
	if s.Number != n {
		return common.Hash{}, false
	}
	return s.Hash, true
}

// holds reports whether b is the canonical block at its height.
func (c *canon) holds(b headBlock) bool {
	h, ok := c.at(b.Number)
	return ok && h == b.Hash
}

// onBranch reports whether a member whose last head is b may serve the
// canonical chain: its head is the canonical block at its height, or a
// block the window cannot judge (unknown hash, below the window); a head
// above the canonical head (the chain went back without it) is not.
func (c *canon) onBranch(b headBlock) bool {
	if !c.has || b.Hash == (common.Hash{}) {
		return true
	}
	if b.Number > c.head.Number {
		return false
	}
	h, ok := c.at(b.Number)
	return !ok || h == b.Hash
}

// Epoch names the chain this pool stands on beside its head's number:
// it moves each time blocks leave the canonical chain (a rewind, a fork
// linked below the head) and each time another replica's head comes that
// the chain does not hold (a claim, canonclaim.go), before any call can
// be answered on the new branch. What may only be shared within one chain
// — a call coalesced with another in flight (internal/coalesce) — is
// keyed by it.
func (p *Pool) Epoch() uint64 { return p.epoch.Load() }

// Canonical is the pool's canonical block at height n: its hash and
// whether the window holds it (false on pools that do not track hashes).
func (p *Pool) Canonical(n uint64) (common.Hash, bool) {
	p.canon.mu.Lock()
	defer p.canon.mu.Unlock()
	return p.canon.at(n)
}

// reportBlock records a head m reported with its hash (a poll of the head
// block, a newHeads push): the canonical chain follows it (see above), the
// members' branches are judged again, and when the chain reorganised to
// an equal or shorter fork by m's report, m's head and the pool's head
// follow it at once (the high-water mark is for a head member that died,
// not for a chain that went back). Then m's head is reported as a number.
func (p *Pool) reportBlock(m *Member, b headBlock) {
	if b.Hash == (common.Hash{}) {
		p.report(m, b.Number) // a family without heads by hash
		return
	}
	var seq uint64
	if b.asked != 0 {
		if !m.reports.CompareAndSwap(b.asked-1, b.asked) {
			p.raiseSeen(m, b) // another report came while the poll was out: the poll's block may be older
			return
		}
		seq = b.asked
	} else {
		seq = m.reports.Add(1)
	}
	b.asked = 0
	if b.since == 0 {
		b.since = nowNano() // a push: its head as it came
	}
	i := p.index(m)
	if !p.forkCheck(m, i, b) { // forkahead.go: asked outside the lock
		return // on a fork of its own: not followed
	}
	path := p.linkPath(m, i, b) // canonlink.go: asked outside the lock
	c := p.canon
	c.mu.Lock()
	if m.reports.Load() != seq {
		c.mu.Unlock()
		p.raiseSeen(m, b) // a newer report of m came during the reads: b may be older
		return
	}
	was, claimed := c.head, c.claim.until != 0
	move := c.observe(i, b, path, func(j int) bool { return p.members[j].InService() })
	leftFrom, leftAny := c.leftFrom, c.leftAny
	c.settleClaim(move)
	for j, s := range c.seen {
		x := p.members[j]
		on := c.onBranch(s)
		x.offBranch.Store(!on)
		if on && s.Hash != (common.Hash{}) && x.head.Load() > c.head.Number {
			// Its head above the chain's was on the abandoned branch: the
			// member is where it last said it is.
			x.lower.Store(0)
			x.head.Store(s.Number)
		}
	}
	head := c.head
	from, to, left := leftChain(move, was, head, leftFrom, leftAny)
	if left {
		p.epoch.Add(1) // before any call can be answered on the new branch (Epoch)
		c.reorgs.Add(1)
	}
	c.mu.Unlock()
	if claimed {
		p.signal() // canonbelow.go: calls waiting on the claim look again
	}
	if move == canonRewound {
		p.highWater.Store(head.Number)
		p.signal()
		p.headMoved(head.Number, true)
	}
	if left && p.OnReorg != nil {
		p.OnReorg(from, to)
	}
	p.report(m, b.Number)
}

// leftChain is the heights whose blocks left the canonical chain when a
// report moved it from head was to head now: after a rewind, from the new
// head's height to the old head's; after a longer fork linked to the
// chain (canonlink.go), from the lowest block it replaced (leftFrom) to
// the old head's; after a head on another parent than the old head that
// could not be linked, the old head's height.
func leftChain(move canonMove, was, now headBlock, leftFrom uint64, leftAny bool) (from, to uint64, left bool) {
	switch {
	case move == canonExtended && leftAny && leftFrom <= was.Number:
		return leftFrom, was.Number, true
	case move == canonRewound:
		return now.Number, max(was.Number, now.Number), true
	case move == canonExtended && was.Hash != (common.Hash{}) && now.Number == was.Number+1 && now.Parent != was.Hash:
		return was.Number, was.Number, true
	}
	return 0, 0, false
}
