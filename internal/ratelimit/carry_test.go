package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// budgetCounter takes one call at a time for one key and counts what is
// admitted, to compare with what GCRA may admit in the time taken: at
// most rate×(1 s + elapsed) credits (a burst of one second's worth).
type budgetCounter struct {
	t        *testing.T
	l        *Limiter
	key      string
	lim      Limits
	cost     int64
	start    time.Time
	admitted int64
}

func (b *budgetCounter) take() Decision {
	if b.start.IsZero() {
		b.start = time.Now()
	}
	d := b.l.Take(context.Background(), b.key, b.cost, b.lim, Admit)
	if d.Outcome == OK {
		b.admitted++
	}
	return d
}

// check fails when more was admitted than the budget allows over the
// time the takes spanned (measured, so a slow machine only loosens it).
func (b *budgetCounter) check(phase string) {
	b.t.Helper()
	elapsed := time.Since(b.start).Seconds()
	budget := int64(b.lim.Rate * (1 + elapsed))
	if spent := b.admitted * b.cost; spent > budget {
		b.t.Fatalf("%s: admitted %d credits in %.2fs, the budget is %d", phase, spent, elapsed, budget)
	}
}

// TestRedisSlowAnswerKeepsSharedBudget makes the real Redis slow (its
// answers held back past the timeout by a proxy, so the server other
// tests share is not paused): a slow answer is decided locally, the
// replica stays on the shared budget, and the local decisions start from
// the key's spent bucket, not a full one.
func TestRedisSlowAnswerKeepsSharedBudget(t *testing.T) {
	c := redistest.Require(t)
	proxy := testenv.NewProxy(t, redistest.Addr())
	// A long heartbeat: the failure rule needs failures over two heartbeat
	// intervals, so the slow answers below can never give Redis up.
	l, err := New(Options{RedisURL: "redis://" + proxy.Addr() + "/0", Prefix: redistest.Prefix(t, c), Timeout: 50 * time.Millisecond, Heartbeat: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Shared() {
		t.Fatal("not shared at start")
	}
	// 10 credits/s at 5 a call: a burst of 2 calls, then one every 0.5 s.
	b := &budgetCounter{t: t, l: l, key: "slow", lim: Limits{Rate: 10}, cost: 5}
	for b.take().Outcome == OK {
		if b.admitted > 10 {
			t.Fatal("the shared bucket never refused")
		}
	}
	proxy.Slow(300 * time.Millisecond)
	for i := range 6 {
		b.take()
		if !l.Shared() {
			t.Fatalf("slow answer %d gave Redis up for local limits", i+1)
		}
	}
	b.check("slow Redis")
	proxy.Slow(0)
}

// TestRateLimitSwitchCarriesBucket switches a replica from Redis to local
// limits (Redis cut) and back after Redis lost its keys (a restart): no
// switch hands the key a fresh bucket.
func TestRateLimitSwitchCarriesBucket(t *testing.T) {
	c := redistest.Require(t)
	prefix := redistest.Prefix(t, c)
	proxy := testenv.NewProxy(t, redistest.Addr())
	l, err := New(Options{RedisURL: "redis://" + proxy.Addr() + "/0", Prefix: prefix, Timeout: 100 * time.Millisecond, Heartbeat: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// 5 credits/s at 5 a call: a burst of one call, then one a second.
	b := &budgetCounter{t: t, l: l, key: "switch", lim: Limits{Rate: 5}, cost: 5}
	for range 3 {
		b.take()
	}
	b.check("shared")

	proxy.Cut()
	testenv.WaitFor(t, 10*time.Second, "local limits", func() bool { b.take(); return !l.Shared() })
	for range 3 {
		b.take()
	}
	b.check("Redis to local")

	ctx := context.Background()
	if err := c.Del(ctx, prefix+":r:switch").Err(); err != nil { // Redis restarted: its buckets are gone
		t.Fatal(err)
	}
	proxy.Restore()
	testenv.WaitFor(t, 10*time.Second, "shared again", l.Shared)
	for range 3 {
		b.take()
	}
	b.check("local to a restarted Redis")
}

// TestRedisLostKeysKeepsSpend: a Redis that lost a key's buckets (a
// restart) is given back what the replica last saw, rate and day.
func TestRedisLostKeysKeepsSpend(t *testing.T) {
	c := redistest.Require(t)
	prefix := redistest.Prefix(t, c)
	l, err := New(Options{RedisURL: "redis://" + redistest.Addr() + "/0", Prefix: prefix, Timeout: time.Second, Heartbeat: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	lim := Limits{Rate: 1, Daily: 1000}
	if d := l.Take(ctx, "lost", 1, lim, Admit); d.Outcome != OK {
		t.Fatalf("first: %+v", d)
	}
	if d := l.Take(ctx, "lost", 999, Limits{Daily: 1000}, Admit); d.Outcome != OK {
		t.Fatalf("the rest of the day: %+v", d)
	}
	day := strconv.Itoa(dayOf(time.Now()))
	if err := c.Del(ctx, prefix+":r:lost", prefix+":d:lost:"+day).Err(); err != nil {
		t.Fatal(err)
	}
	if d := l.Take(ctx, "lost", 1, Limits{Rate: 1}, Admit); d.Outcome != RateExceeded {
		t.Fatalf("a fresh rate bucket after Redis lost it: %+v", d)
	}
	if d := l.Take(ctx, "lost", 1, Limits{Daily: 1000}, Admit); d.Outcome != DailyExceeded || d.DailyUsed != 1000 {
		t.Fatalf("a fresh day after Redis lost it: %+v", d)
	}
}
