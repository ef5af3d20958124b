package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// A member on its own fork ahead of all others (same chain id and
// genesis, its own blocks) is out of service, not followed. Before the
// canonical chain follows a member's head it cannot link to its own head
// (a head above it whose parent is not the chain's head: a jump over
// blocks the pool never saw, or a fork), reported by a member that is not
// the head member — or by the head member when the chain holds the parent
// height with another hash (a fork for sure) —, the pool asks that member
// for its block at the height of each other member's head (members in
// service whose heads the canonical chain holds; at start, other members'
// heads on one chain with each other's), when there are at least two such
// members — with fewer, nothing tells which chain is the odd one: members
// that each seal their own blocks disagree with every other member and
// are all followed as before —: when one of them is the same block,
// the member's chain is theirs and it is followed; when none is, it is on
// a fork of its own, and out of service with a WARN naming the height and
// both hashes, until a later head of its own agrees with the others (a
// head of its own that cannot be judged — too few others, or it does not
// answer —, or that no other member confirmed, leaves it out). The
// same check is made of the head member while no other member has yet
// reported a block of its chain (the chain's first head, at start), when
// another member reports a head the chain does not hold.
//
// Limits: a head member that forks off alone after another member agreed
// with it, reporting heads that link to each other, is followed (it is
// the chain's branch, as a consensus client's node is); a pool of two
// members never takes one out for this; and in a pool of three or more, a
// reorg to a longer fork takes the first member to switch out of service
// until another member switches too.

// forkCheck makes the check before member m's (index i) report b is
// observed, and reports whether b is followed: not when m is found on a
// fork of its own, nor while m is out for one and b did not earn it back
// (it was not judged — too few others, or m did not answer —, or, with
// nothing to check, no other member confirmed the chain).
func (p *Pool) forkCheck(m *Member, i int, b headBlock) bool {
	s, refs := p.forkSuspect(i, b)
	if s >= 0 && len(refs) >= 2 {
		// Fewer than two other members on one chain: nothing tells which
		// chain is the odd one (members that each seal their own blocks
		// disagree with every other member).
		why, judged := p.checkFork(p.members[s], refs)
		switch {
		case why != nil:
			p.forkOut(p.members[s], why)
			if s == i {
				return false
			}
		case judged:
			p.canon.mu.Lock()
			p.canon.confirmed = true
			p.canon.mu.Unlock()
			m.forkAhead.Store(false)
			return true
		}
	}
	if m.forkAhead.Load() && (s == i || s < 0 && !p.confirmed()) {
		return false
	}
	m.forkAhead.Store(false)
	return true
}

// forkSuspect is the member whose chain must be checked before member i's
// report b is observed (-1: none), and the heads of the other members it
// is checked against.
func (p *Pool) forkSuspect(i int, b headBlock) (int, []memberHead) {
	c := p.canon
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.has || i < 0 {
		return -1, nil
	}
	suspect := -1
	switch {
	case b.Number > c.head.Number && (b.Number != c.head.Number+1 || b.Parent != c.head.Hash):
		parent, held := c.at(b.Number - 1)
		if i != c.by || held && parent != b.Parent {
			suspect = i
		}
	case !c.confirmed && i != c.by && c.by >= 0 && p.members[c.by].InService() && b.Number < c.head.Number && !c.holds(b):
		suspect = c.by
	}
	if suspect < 0 {
		if i != c.by && c.holds(b) {
			c.confirmed = true
		}
		return -1, nil
	}
	var refs []memberHead
	for j, s := range c.seen {
		if j == i {
			s = b
		}
		if j == suspect || s.Hash == (headBlock{}).Hash || !p.members[j].InService() || suspect == i && !c.holds(s) {
			continue
		}
		refs = append(refs, memberHead{j, s})
	}
	if suspect != i {
		refs = agreeing(refs)
	}
	return suspect, refs
}

// confirmed reports whether another member than the head member reported
// a block of the chain.
func (p *Pool) confirmed() bool {
	p.canon.mu.Lock()
	defer p.canon.mu.Unlock()
	return p.canon.confirmed
}

// agreeing keeps the heads of refs that are on one chain with another
// head of refs (the same block, or one the other's parent).
func agreeing(refs []memberHead) []memberHead {
	var out []memberHead
	for x, r := range refs {
		for y, o := range refs {
			if x != y && (r.b.Hash == o.b.Hash || r.b.Parent == o.b.Hash || o.b.Parent == r.b.Hash) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// heldBy reports whether a head in refs is b (one question per block).
func heldBy(refs []memberHead, b headBlock) bool {
	for _, r := range refs {
		if r.b.Hash == b.Hash {
			return true
		}
	}
	return false
}

// memberHead is member j's head.
type memberHead struct {
	j int
	b headBlock
}

// checkFork asks m for its block at the height of each head in refs: nil
// when one is the same block, else why m is on a fork of its own. A
// member that cannot answer is not judged (nil, false).
func (p *Pool) checkFork(m *Member, refs []memberHead) (why error, judged bool) {
	ctx, cancel := context.WithTimeout(context.Background(), min(p.cfg.AttemptTimeout, 5*time.Second))
	defer cancel()
	var first error
	for x, r := range refs {
		if heldBy(refs[:x], r.b) {
			continue // asked already
		}
		mine, err := p.blockAt(ctx, m, r.b.Number)
		if err != nil {
			return nil, false
		}
		if mine.Hash == r.b.Hash {
			return nil, true
		}
		if first == nil {
			first = fmt.Errorf("on a fork of its own: its block %d is %s, %s's is %s", r.b.Number, mine.Hash.Hex(), p.members[r.j].Name(), r.b.Hash.Hex())
		}
	}
	return first, true
}

// forkOut takes m out of service for being on a fork of its own.
func (p *Pool) forkOut(m *Member, why error) {
	m.forkAhead.Store(true)
	if m.exclude(why) {
		slog.Warn("upstream out of service: on its own fork ahead of the other members", "pool", p.id, "upstream", m.Name(), "reason", why)
		p.changed(m, false)
	}
}
