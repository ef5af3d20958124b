package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// Memory is the in-process backend: exact for one process, and the
// fallback of the Redis backend.
type Memory struct {
	// now is the clock (tests pin it).
	now    func() time.Time
	base   time.Time
	seed   maphash.Seed
	shards [64]memShard
}

type memShard struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

// NewMemory makes an empty in-memory backend.
func NewMemory() *Memory { return newMemoryAt(time.Now) }

func newMemoryAt(now func() time.Time) *Memory {
	m := &Memory{now: now, base: now(), seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].buckets = map[string]*bucket{}
	}
	return m
}

// Take implements Backend.
func (m *Memory) Take(_ context.Context, key string, cost int64, lim Limits, day int, mode Mode) (Decision, error) {
	t := m.now()
	now := int64(t.Sub(m.base))
	sh := &m.shards[maphash.String(m.seed, key)%uint64(len(m.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	b := sh.buckets[key]
	if b == nil {
		b = &bucket{day: day}
		sh.buckets[key] = b
	}
	if b.day != day {
		b.day, b.dailyUsed = day, 0
	}
	d := Decision{CurrentRate: b.offer(now, cost), DailyUsed: b.dailyUsed}
	if lim.Daily > 0 && b.dailyUsed+cost > lim.Daily {
		d.Outcome, d.RetryAfter = DailyExceeded, untilMidnight(t)
		return d, nil
	}
	if mode == Admit && lim.Rate > 0 {
		tat, wait, ok := gcra(b.tat, now, cost, lim.Rate)
		if !ok {
			d.Outcome, d.RetryAfter = RateExceeded, time.Duration(wait)
			return d, nil
		}
		b.tat = tat
	}
	b.dailyUsed += cost
	d.DailyUsed = b.dailyUsed
	return d, nil
}

// forget drops every key's state (used when the Redis backend hands the
// budget back to Redis, so that a later outage starts afresh).
func (m *Memory) forget() {
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		clear(sh.buckets)
		sh.mu.Unlock()
	}
}
