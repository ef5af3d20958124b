package upstream

import (
	"context"
	"math/rand/v2"
	"time"
)

// Which member a call's next attempt goes to: one in service that has the
// block the call names (or is at the pool's head), in the best priority
// tier, by the power of two random choices on expected wait (and on how
// often each holds its calls, held.go).

// floor is the lowest head a member must have to answer a call naming ref:
// the block it names, else the pool's head (less MaxLag); never below
// above (a lag retry asks a member ahead of the one that answered).
func (p *Pool) floor(ref blockRef, above uint64) uint64 {
	t := p.target()
	f := t - min(t, p.cfg.MaxLag)
	if ref.named {
		f = min(ref.number, t) // a block no member was seen at: the head is the best bet
	}
	return max(f, above)
}

// pick chooses among untried healthy members whose head is at or above
// floor, in the best priority tier, by the power of two random choices on
// expected wait.
func (p *Pool) pick(tried []bool) *Member {
	return p.pickAmong(tried, p.floor(blockRef{}, 0), true)
}

// choose picks the member of a call's next attempt (see pick). When no
// member in service has the block the call needs but one is below it (the
// member at the head died; the others follow it), it waits for one to
// reach it, up to HeadWait from its first wait and within the call's
// budget; waiting is not done for a lag retry (r.above set) nor for a block
// far beyond every head (r.future). When still
// none can, it tries members out of service at the floor rather than
// none: a node taken out by a passing stall may answer, and a dead one
// fails fast, so the call still ends in an answer or in failover.
//
// It is awaitWhile's loop written out: a closure over r here moves the
// call's tried list to the heap, one allocation on every call.
func (p *Pool) choose(ctx context.Context, r *retry) *Member {
	for {
		if m := p.pickAmong(r.tried, p.floor(r.ref, r.above), true); m != nil {
			return m
		}
		if r.above != 0 || r.future || !p.belowFloor(r.tried, p.floor(r.ref, r.above)) {
			break
		}
		changed := p.Changed()
		if m := p.pickAmong(r.tried, p.floor(r.ref, r.above), true); m != nil {
			return m // a head moved between the first look and the wait
		}
		if r.waitUntil.IsZero() {
			r.waitUntil = time.Now().Add(p.cfg.HeadWait)
			if r.budget.Before(r.waitUntil) {
				r.waitUntil = r.budget
			}
		}
		d := time.Until(r.waitUntil)
		if d <= 0 {
			break
		}
		if !awaitChange(ctx, changed, d) {
			return nil
		}
	}
	return p.pickAmong(r.tried, p.floor(r.ref, r.above), false)
}

// awaitChange waits until changed (a Changed channel) is closed, d
// passes or ctx ends; false when ctx ended.
func awaitChange(ctx context.Context, changed <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-changed:
	case <-t.C:
	case <-ctx.Done():
		return false
	}
	return true
}

// awaitWhile waits while held says so, up to the time it gives and never
// past budget, looking again at each change of the pool; false when ctx
// ended. held is asked once when it need not wait (the usual case: no
// look at the pool's changes), and again after taking the change to wait
// on, so that a change between the two looks is not missed.
func (p *Pool) awaitWhile(ctx context.Context, budget time.Time, held func() (bool, time.Time)) bool {
	for {
		if wait, _ := held(); !wait {
			return true
		}
		changed := p.Changed()
		wait, until := held()
		if budget.Before(until) {
			until = budget
		}
		d := time.Until(until)
		if !wait || d <= 0 {
			return true
		}
		if !awaitChange(ctx, changed, d) {
			return false
		}
	}
}

// belowFloor reports whether an untried member in service is below floor:
// one that may yet reach it.
func (p *Pool) belowFloor(tried []bool, floor uint64) bool {
	for i, m := range p.members {
		if !tried[i] && m.InService() && m.Head() < floor {
			return true
		}
	}
	return false
}

// ahead reports whether an untried member in service has a head above n.
func (p *Pool) ahead(tried []bool, n uint64) bool {
	for i, m := range p.members {
		if !tried[i] && m.InService() && !m.offBranch.Load() && m.Head() > n {
			return true
		}
	}
	return false
}

func (p *Pool) pickAmong(tried []bool, floor uint64, healthy bool) *Member {
	if m := p.pickOf(tried, floor, healthy, true); m != nil {
		return m
	}
	// No member on the canonical branch can serve: one on another branch
	// answers rather than none (a member is skipped for its branch only
	// while one on the canonical branch can answer).
	return p.pickOf(tried, floor, healthy, false)
}

// pickOf is pickAmong's choice, among members on the canonical branch
// only when onBranch.
func (p *Pool) pickOf(tried []bool, floor uint64, healthy, onBranch bool) *Member {
	var cands [16]*Member
	list := cands[:0]
	tier := int(^uint(0) >> 1)
	for i, m := range p.members {
		if tried[i] || m.Healthy() != healthy || m.excluded.Load() || m.Head() < floor || (onBranch && m.offBranch.Load()) {
			continue
		}
		switch {
		case m.Priority < tier:
			tier = m.Priority
			list = append(list[:0], m)
		case m.Priority == tier:
			list = append(list, m)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	// Two members at random (maybe the same one); the one of lower
	// expected wait wins, with the cost of the calls each holds (held.go)
	// but in one pick of heldExplore. A member drawn twice is set against
	// another when it holds calls.
	a := list[rand.IntN(len(list))]
	b := list[rand.IntN(len(list))]
	sa, sb := a.score(), b.score()
	if rand.Uint32()%heldExplore != 0 {
		tail, now := 1-p.hedges.cfg.Quantile, p.hedges.watched.Load()
		if a == b {
			if c := otherThan(list, a); a.heldCost(c, tail, now) > 0 {
				b, sb = c, c.score()
			}
		}
		sa += a.heldCost(b, tail, now)
		sb += b.heldCost(a, tail, now)
	}
	if sb < sa {
		return b
	}
	return a
}

// otherThan is a member of list (of two or more) other than m, at random.
func otherThan(list []*Member, m *Member) *Member {
	i := rand.IntN(len(list) - 1)
	if list[i] == m {
		return list[len(list)-1]
	}
	return list[i]
}

func (p *Pool) index(m *Member) int {
	for i, x := range p.members {
		if x == m {
			return i
		}
	}
	return -1
}
