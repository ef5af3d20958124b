package upstream

import "github.com/ethereum/go-ethereum/common"

// A lagging member on a branch the chain left is not followed: go-ethereum
// members import every block a builder makes, those of a branch abandoned
// meanwhile too, so a member behind the others may report, after the
// chain switched, a head above the chain's that extends the abandoned
// branch. The chain keeps the hashes of the blocks that left it lately;
// a head of a member other than the head member (while that one is in
// service) whose parent, or any block linking it to the chain, is one of
// them — or is itself one — is on that branch: it is not followed, the
// member is on another branch (not chosen), and the head joins the blocks
// gone, so that the branch's next heads are known too. The head member
// itself is followed wherever it goes (the chain may come back to a
// branch it left, as a node's does). Blocks the chain leaves for another
// member's branch while the head member is out of service are not
// recorded: nothing says which branch was abandoned. A head more than
// abandonedReach blocks above the chain's head is followed even on a
// branch the chain left: that branch went on growing, the head member did
// not.

// goneBlocks is a ring of the hashes of blocks that left the chain.
type goneBlocks struct {
	hashes [canonWindow]common.Hash
	next   int
}

func (g *goneBlocks) add(h common.Hash) {
	g.hashes[g.next] = h
	g.next = (g.next + 1) % len(g.hashes)
}

func (g *goneBlocks) has(h common.Hash) bool {
	if h == (common.Hash{}) {
		return false
	}
	for _, x := range g.hashes {
		if x == h {
			return true
		}
	}
	return false
}

// leave records that the chain's blocks from n up to its head leave it.
func (c *canon) leave(n uint64) {
	if !c.has {
		return
	}
	for x := max(n, c.low); x <= c.head.Number; x++ {
		if s := c.slots[x%canonWindow]; s.Number == x {
			c.gone.add(s.Hash)
			if !c.leftAny || x < c.leftFrom {
				c.leftFrom, c.leftAny = x, true
			}
		}
	}
}

// abandoned reports whether b, with path linking it to the chain, is on a
// branch the chain left and no more than abandonedReach blocks above the
// chain's head (further, that branch went on growing past a head member
// that stopped — a node cut off from its peers — and is followed); if so
// b joins the blocks gone.
func (c *canon) abandoned(b headBlock, path []headBlock) bool {
	if c.holds(b) || b.Number > c.head.Number+abandonedReach {
		return false
	}
	gone := c.gone.has(b.Hash) || c.left(b.Number-1, b.Parent)
	if !c.linksAt(b) {
		// A path is judged only when b's parent is not the chain's: one
		// read while the chain was elsewhere says nothing of a head that
		// extends the chain as it is now.
		for _, x := range path {
			gone = gone || c.left(x.Number, x.Hash)
		}
	}
	if gone && !c.gone.has(b.Hash) {
		c.gone.add(b.Hash)
	}
	return gone
}

// abandonedReach is how far above the chain's head a member may be on
// a branch the chain left and still be a lagging member of it: a
// reorganisation to a shorter chain leaves the abandoned head at most one
// block less than its depth above the new head (go-ethereum members
// import every block of it), and it is one or two blocks deep on a live
// network.
const abandonedReach = 3

// left reports whether h, a block at height n, left the chain and is not
// back on it.
func (c *canon) left(n uint64, h common.Hash) bool {
	if ch, ok := c.at(n); ok && ch == h {
		return false
	}
	return c.gone.has(h)
}
