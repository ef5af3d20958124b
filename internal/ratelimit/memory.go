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

// Take implements Backend. The rate is the key's bucket; the daily count
// is the bucket of lim's daily subject (the key's own, or its account's),
// both under their shards' locks, taken in shard order.
func (m *Memory) Take(_ context.Context, key string, cost int64, lim Limits, day int, mode Mode) (d Decision, err error) {
	t := m.now()
	now := int64(t.Sub(m.base))
	subject := lim.dailySubject(key)
	rs, ds := m.shardOf(key), m.shardOf(subject)
	first, second := rs, ds
	if first > second {
		first, second = second, first
	}
	m.shards[first].mu.Lock()
	defer m.shards[first].mu.Unlock()
	if second != first {
		m.shards[second].mu.Lock()
		defer m.shards[second].mu.Unlock()
	}
	rb := m.shards[rs].bucket(key, day)
	db := rb
	if subject != key {
		db = m.shards[ds].bucket(subject, day)
	}
	if db.day != day {
		db.day, db.dailyUsed = day, 0
	}
	db.dailyUsed = max(db.dailyUsed, lim.dailyAtLeast)
	if lim.drainedBy > 0 {
		rb.tat = max(rb.tat, lim.drainedBy-m.base.UnixNano())
	}
	d = Decision{CurrentRate: rb.offer(now, cost), DailyUsed: db.dailyUsed}
	defer func() { d.drained = m.base.UnixNano() + max(rb.tat, now) }()
	if mode != Spend && lim.Daily > 0 && db.dailyUsed+cost > lim.Daily {
		d.Outcome, d.RetryAfter = DailyExceeded, untilMidnight(t)
		return d, nil
	}
	if mode == Admit && lim.Rate > 0 {
		tat, wait, ok := gcra(rb.tat, now, cost, lim.Rate, lim.Burst)
		if !ok {
			d.Outcome, d.RetryAfter = RateExceeded, time.Duration(wait)
			return d, nil
		}
		rb.tat = tat
	}
	db.dailyUsed += cost
	d.DailyUsed = db.dailyUsed
	return d, nil
}

func (m *Memory) shardOf(name string) int {
	return int(maphash.String(m.seed, name) % uint64(len(m.shards)))
}

// bucket returns name's bucket, made for day when new; the caller holds
// the shard's lock.
func (sh *memShard) bucket(name string, day int) *bucket {
	b := sh.buckets[name]
	if b == nil {
		b = &bucket{day: day}
		sh.buckets[name] = b
	}
	return b
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
