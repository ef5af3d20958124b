package ratelimit

import (
	"context"
	"testing"
	"time"
)

// fakeClock is a pinned clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestMemoryRate(t *testing.T) {
	type step struct {
		after time.Duration // clock moves before the take
		cost  int64
		want  Outcome
	}
	cases := []struct {
		name  string
		rate  float64
		burst float64
		steps []step
	}{
		{"burst of one second's worth, then refused", 100, 0, []step{
			{0, 50, OK}, {0, 50, OK}, {0, 5, RateExceeded},
		}},
		{"refills smoothly", 100, 0, []step{
			{0, 100, OK}, {0, 1, RateExceeded}, {10 * time.Millisecond, 1, OK}, {0, 1, RateExceeded}, {100 * time.Millisecond, 10, OK},
		}},
		{"a request above one second's worth passes on a full bucket only", 100, 0, []step{
			{0, 255, OK}, {time.Second, 255, RateExceeded}, {1550 * time.Millisecond, 255, OK},
		}},
		{"idle time does not bank more than the burst", 10, 0, []step{
			{time.Hour, 10, OK}, {0, 1, RateExceeded},
		}},
		{"a plan's burst above one second's worth, then the rate", 100, 400, []step{
			{0, 255, OK}, {0, 145, OK}, {0, 1, RateExceeded}, {10 * time.Millisecond, 1, OK},
		}},
		{"a burst below one second's worth is one second's worth", 100, 10, []step{
			{0, 100, OK}, {0, 1, RateExceeded},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
			m := newMemoryAt(clk.now)
			for i, s := range tc.steps {
				clk.advance(s.after)
				d, err := m.Take(context.Background(), "k", s.cost, Limits{Rate: tc.rate, Burst: tc.burst}, dayOf(clk.t), Admit)
				if err != nil || d.Outcome != s.want {
					t.Fatalf("step %d: outcome %d err %v, want %d", i, d.Outcome, err, s.want)
				}
				if d.Outcome == RateExceeded && d.RetryAfter <= 0 {
					t.Fatalf("step %d: refused without a wait", i)
				}
			}
		})
	}
}

func TestMemoryRetryAfterIsExact(t *testing.T) {
	clk := &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	m := newMemoryAt(clk.now)
	lim := Limits{Rate: 100}
	for range 20 { // 20×5 = 100: the burst
		if d, _ := m.Take(context.Background(), "k", 5, lim, 1, Admit); d.Outcome != OK {
			t.Fatal("burst refused")
		}
	}
	d, _ := m.Take(context.Background(), "k", 5, lim, 1, Admit)
	if d.Outcome != RateExceeded || d.RetryAfter != 50*time.Millisecond {
		t.Fatalf("got %d after %s, want refused with a 50ms wait", d.Outcome, d.RetryAfter)
	}
	clk.advance(d.RetryAfter)
	if d, _ := m.Take(context.Background(), "k", 5, lim, 1, Admit); d.Outcome != OK {
		t.Fatalf("refused after waiting Retry-After: %+v", d)
	}
}

func TestMemoryDaily(t *testing.T) {
	clk := &fakeClock{t: time.Date(2025, 3, 1, 23, 59, 0, 0, time.UTC)}
	m := newMemoryAt(clk.now)
	lim := Limits{Daily: 100}
	take := func(cost int64, mode Mode) Decision {
		d, err := m.Take(context.Background(), "k", cost, lim, dayOf(clk.t), mode)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := take(80, Admit); d.Outcome != OK || d.DailyUsed != 80 {
		t.Fatalf("first: %+v", d)
	}
	if d := take(30, Admit); d.Outcome != DailyExceeded || d.RetryAfter != time.Minute || d.DailyUsed != 80 {
		t.Fatalf("over budget: %+v", d)
	}
	if d := take(20, Spend); d.Outcome != OK || d.DailyUsed != 100 {
		t.Fatalf("spend to the budget: %+v", d)
	}
	if d := take(0, Spend); d.Outcome != OK || d.DailyUsed != 100 {
		t.Fatalf("reading the spend: %+v", d)
	}
	if d := take(5, Spend); d.Outcome != OK || d.DailyUsed != 105 {
		t.Fatalf("spend is never refused (notifications already written): %+v", d)
	}
	clk.advance(time.Minute) // 00:00 UTC: a new day
	if d := take(100, Admit); d.Outcome != OK || d.DailyUsed != 100 {
		t.Fatalf("after midnight: %+v", d)
	}
}

func TestMemoryKeysAreIsolated(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	m := newMemoryAt(clk.now)
	lim := Limits{Rate: 10, Daily: 1000}
	if d, _ := m.Take(context.Background(), "a", 10, lim, 1, Admit); d.Outcome != OK {
		t.Fatal("a refused")
	}
	if d, _ := m.Take(context.Background(), "a", 10, lim, 1, Admit); d.Outcome != RateExceeded {
		t.Fatal("a not limited")
	}
	if d, _ := m.Take(context.Background(), "b", 10, lim, 1, Admit); d.Outcome != OK {
		t.Fatal("b limited by a's spending")
	}
}

func TestCurrentRateEstimate(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	m := newMemoryAt(clk.now)
	var d Decision
	for range 10 { // 10 offers of 30 over one second, rate 100: most are refused
		d, _ = m.Take(context.Background(), "k", 30, Limits{Rate: 100}, 1, Admit)
		clk.advance(100 * time.Millisecond)
	}
	if d.CurrentRate < 250 || d.CurrentRate > 310 {
		t.Fatalf("current rate %v, want about 300 credits/s offered", d.CurrentRate)
	}
}
