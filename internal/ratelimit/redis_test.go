package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/testenv"
)

func TestRedisBackend(t *testing.T) {
	c := redistest.Require(t)
	r := NewRedis(c, redistest.Prefix(t, c))
	ctx := context.Background()
	day := dayOf(time.Now())
	take := func(key string, cost int64, lim Limits, mode Mode) Decision {
		t.Helper()
		d, err := r.Take(ctx, key, cost, lim, day, mode)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Run("burst then refused with a wait", func(t *testing.T) {
		lim := Limits{Rate: 100}
		if d := take("burst", 100, lim, Admit); d.Outcome != OK {
			t.Fatalf("burst refused: %+v", d)
		}
		d := take("burst", 50, lim, Admit)
		if d.Outcome != RateExceeded || d.RetryAfter <= 0 || d.RetryAfter > 500*time.Millisecond || d.CurrentRate < 150 {
			t.Fatalf("over the burst: %+v", d)
		}
		time.Sleep(d.RetryAfter + 5*time.Millisecond)
		if d := take("burst", 50, lim, Admit); d.Outcome != OK {
			t.Fatalf("refused after Retry-After: %+v", d)
		}
	})
	t.Run("a plan's burst above one second's worth", func(t *testing.T) {
		lim := Limits{Rate: 100, Burst: 400}
		if d := take("plan-burst", 390, lim, Admit); d.Outcome != OK {
			t.Fatalf("within the burst: %+v", d)
		}
		if d := take("plan-burst", 50, lim, Admit); d.Outcome != RateExceeded || d.RetryAfter <= 0 {
			t.Fatalf("over the burst: %+v", d)
		}
	})
	t.Run("daily budget, spend mode and isolation", func(t *testing.T) {
		lim := Limits{Daily: 100}
		if d := take("daily", 90, lim, Admit); d.Outcome != OK || d.DailyUsed != 90 {
			t.Fatalf("first: %+v", d)
		}
		if d := take("daily", 20, lim, Admit); d.Outcome != DailyExceeded || d.DailyUsed != 90 || d.RetryAfter <= 0 {
			t.Fatalf("over: %+v", d)
		}
		if d := take("daily", 10, lim, Spend); d.Outcome != OK || d.DailyUsed != 100 {
			t.Fatalf("spend: %+v", d)
		}
		if d := take("daily", 5, lim, Spend); d.Outcome != OK || d.DailyUsed != 105 {
			t.Fatalf("spend is never refused: %+v", d)
		}
		if d := take("daily", 0, lim, Spend); d.Outcome != OK || d.DailyUsed != 105 {
			t.Fatalf("reading the spend: %+v", d)
		}
		if d := take("other", 100, lim, Admit); d.Outcome != OK || d.DailyUsed != 100 {
			t.Fatalf("another key is charged for the first: %+v", d)
		}
		ttl := c.TTL(ctx, r.prefix+":d:daily:"+strconv.Itoa(day)).Val()
		if ttl <= 24*time.Hour || ttl > dailyTTL {
			t.Fatalf("daily counter TTL %s", ttl)
		}
	})
}

// TestLimiterFallsBackAndReturns cuts Redis under two limiters (two
// replicas): each then allows half the rate, and both go back to the
// shared budget when Redis returns.
func TestLimiterFallsBackAndReturns(t *testing.T) {
	c := redistest.Require(t)
	prefix := redistest.Prefix(t, c)
	proxy := testenv.NewProxy(t, redistest.Addr())
	opts := Options{RedisURL: "redis://" + proxy.Addr() + "/0", Prefix: prefix, Timeout: 100 * time.Millisecond, Heartbeat: 100 * time.Millisecond}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	testenv.WaitFor(t, 5*time.Second, "both replicas seen", func() bool { return a.Shared() && a.Replicas() == 2 && b.Replicas() == 2 })
	ctx := context.Background()
	lim := Limits{Rate: 100, Daily: 1000}
	// Shared: one key's burst is 100 credits across both replicas.
	if d := a.Take(ctx, "k", 100, lim, Admit); d.Outcome != OK {
		t.Fatalf("shared burst: %+v", d)
	}
	if d := b.Take(ctx, "k", 10, lim, Admit); d.Outcome != RateExceeded {
		t.Fatalf("second replica ignored the first one's spending: %+v", d)
	}

	proxy.Cut()
	start := time.Now()
	d := a.Take(ctx, "fresh", 50, lim, Admit) // Redis fails: decided locally
	if d.Outcome != OK || time.Since(start) > time.Second {
		t.Fatalf("fallback take: %+v after %s", d, time.Since(start))
	}
	testenv.WaitFor(t, 5*time.Second, "both replicas on local limits", func() bool { return !a.Shared() && !b.Shared() })
	// Local share: half the rate, so a burst of 50 credits per replica.
	if d := b.Take(ctx, "fresh", 50, lim, Admit); d.Outcome != OK {
		t.Fatalf("local half burst: %+v", d)
	}
	if d := b.Take(ctx, "fresh", 10, lim, Admit); d.Outcome != RateExceeded {
		t.Fatalf("local limit is not half the rate: %+v", d)
	}
	// Daily share: Redis had seen 100 of 1000 spent on k; half of the rest each.
	if d := a.Take(ctx, "k", 450, Limits{Daily: 1000}, Admit); d.Outcome != OK || d.DailyUsed != 550 {
		t.Fatalf("local daily share: %+v", d)
	}
	if d := a.Take(ctx, "k", 1, Limits{Daily: 1000}, Admit); d.Outcome != DailyExceeded {
		t.Fatalf("local daily share exceeded: %+v", d)
	}

	proxy.Restore()
	testenv.WaitFor(t, 5*time.Second, "shared again", func() bool { return a.Shared() && b.Shared() })
	before, _ := c.Get(ctx, prefix+":d:k:"+strconv.Itoa(dayOf(time.Now()))).Int64()
	if d := a.Take(ctx, "k", 5, lim, Admit); d.Outcome != OK || d.DailyUsed != before+5 {
		t.Fatalf("after Redis returned: %+v (Redis had %d)", d, before)
	}
}
