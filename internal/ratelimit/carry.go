package ratelimit

import "sync/atomic"

// carried is what a replica last knew of one key's buckets, kept across
// every switch between Redis and local limits so that no switch hands out
// a fresh bucket:
//   - drained: when the key's rate bucket drains (Unix ns on this
//     replica's clock), raised by every decision, in Redis or local. A
//     local bucket starts from it when Redis fails; Redis is given it
//     back with every call and takes it when it holds no bucket for the
//     key (lost in a restart) or when local is set (the replica decided
//     the key locally since Redis last answered for it: decisions Redis
//     missed), so it starts no emptier than the replica knew it. A local
//     bucket at the replica's share of the rate
//     (the rate over n replicas) that drains at a time stands for the
//     fleet's bucket at the whole rate draining at the same time, so the
//     one time serves both ways.
//   - day and used: the day's credits as Redis last reported them (for
//     the daily subject); a fallback spends its share of what is left,
//     and Redis is told the count is at least that.
type carried struct {
	drained atomic.Int64
	local   atomic.Bool
	day     atomic.Int64
	used    atomic.Int64
}

// carriedOf returns the records of key's rate bucket and of its daily
// subject (the same record when the key counts its own day).
func (l *Limiter) carriedOf(key string, lim Limits) (rate, daily *carried) {
	rate = l.carriedFor(key)
	if s := lim.dailySubject(key); s != key {
		return rate, l.carriedFor(s)
	}
	return rate, rate
}

func (l *Limiter) carriedFor(name string) *carried {
	v, ok := l.carried.Load(name)
	if !ok {
		v, _ = l.carried.LoadOrStore(name, new(carried))
	}
	return v.(*carried)
}

// raise moves the drain time later (a bucket's drain time never moves
// earlier; decisions may finish out of order).
func (c *carried) raise(drained int64) {
	for {
		old := c.drained.Load()
		if drained <= old || c.drained.CompareAndSwap(old, drained) {
			return
		}
	}
}

// remember records the day's count Redis reported.
func (c *carried) remember(day int, used int64) {
	if c.day.Load() != int64(day) {
		c.day.Store(int64(day))
	}
	c.used.Store(used)
}

// usedOn is the day's count last reported, 0 for another day.
func (c *carried) usedOn(day int) int64 {
	if c.day.Load() != int64(day) {
		return 0
	}
	return c.used.Load()
}
