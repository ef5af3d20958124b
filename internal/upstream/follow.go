package upstream

// What the pool tells a network's subscription hub (internal/subs): which
// member push subscriptions run on, and when that member should be left.

// Subscriber is the member's Subscriber (nil when its upstream takes no
// subscriptions: a plain HTTP node).
func (m *Member) Subscriber() Subscriber {
	s, _ := SubscriberOf(m.Upstream)
	return s
}

// InService reports whether the pool may choose m: healthy, not kept out
// by PoolConfig.Check.
func (m *Member) InService() bool { return m.Healthy() && !m.excluded.Load() }

// Subscribers reports whether some member takes subscriptions.
func (p *Pool) Subscribers() bool {
	for _, m := range p.members {
		if m.Subscriber() != nil {
			return true
		}
	}
	return false
}

// Lag is how many blocks m is behind the head the pool serves from (see
// target; 0 when at or above it).
func (p *Pool) Lag(m *Member) uint64 {
	t := p.target()
	if h := m.Head(); t > h {
		return t - h
	}
	return 0
}

// SubscriptionMember is the member subscriptions should run on: in
// service, taking subscriptions, within MaxLag of the head; among those the
// highest head, then the best priority tier, then the best score. avoid
// (the member a subscription just failed on) is chosen only when no other
// member qualifies. When no member is within MaxLag the highest in service
// is chosen rather than none. Nil when no member in service takes
// subscriptions.
func (p *Pool) SubscriptionMember(avoid *Member) *Member {
	var best, fallback *Member
	better := func(a, b *Member) bool { // a before b
		if b == nil {
			return true
		}
		if al, bl := p.Lag(a) <= p.cfg.MaxLag, p.Lag(b) <= p.cfg.MaxLag; al != bl {
			return al
		}
		switch {
		case a.Head() != b.Head():
			return a.Head() > b.Head()
		case a.Priority != b.Priority:
			return a.Priority < b.Priority
		}
		return a.score() < b.score()
	}
	for _, m := range p.members {
		switch {
		case !m.InService() || m.Subscriber() == nil:
		case m == avoid:
			fallback = m
		case better(m, best):
			best = m
		}
	}
	if best == nil {
		return fallback
	}
	return best
}

// Changed is closed at the next change of a member's health or head (then
// a new channel takes its place): a hub waits on it rather than poll.
func (p *Pool) Changed() <-chan struct{} {
	p.changeMu.Lock()
	defer p.changeMu.Unlock()
	if p.changeCh == nil {
		p.changeCh = make(chan struct{})
	}
	return p.changeCh
}

// signal wakes whoever waits on Changed.
func (p *Pool) signal() {
	p.changeMu.Lock()
	if p.changeCh != nil {
		close(p.changeCh)
		p.changeCh = nil
	}
	p.changeMu.Unlock()
}
