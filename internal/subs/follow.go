package subs

import (
	"time"
)

// follow reviews the streams' member whenever the pool reports a change of
// health or head, and at least every ReviewInterval, until Close.
func (h *Hub) follow() {
	defer close(h.done)
	for {
		changed := h.pool.Changed()
		h.review()
		select {
		case <-h.quit:
			return
		case <-changed:
		case <-time.After(h.opts.ReviewInterval):
		}
	}
}

// review moves the streams when their member left service, or when it has
// been behind the pool's head by more than MaxLag for longer than two head
// intervals (a member whose head was polled a moment before its peers' is
// not behind) and another member is ahead of it.
func (h *Hub) review() {
	h.curMu.Lock()
	defer h.curMu.Unlock()
	cur := h.cur
	if cur == nil {
		return // no stream yet: the first subscribe chooses
	}
	if !cur.InService() {
		if next := h.pool.SubscriptionMember(cur); next != nil && next != cur {
			h.moveLocked(next, "its member left service")
		}
		return
	}
	if h.pool.Lag(cur) <= h.pool.Config().MaxLag {
		h.lagSince = time.Time{}
		return
	}
	if h.lagSince.IsZero() {
		h.lagSince = time.Now()
		return
	}
	if time.Since(h.lagSince) < 2*h.pool.Config().HeadInterval {
		return
	}
	if next := h.pool.SubscriptionMember(cur); next != nil && next != cur && next.Head() > cur.Head() {
		h.moveLocked(next, "its member fell behind the head")
	}
}
