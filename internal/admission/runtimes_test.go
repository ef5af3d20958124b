package admission

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// fakeClock is the execution queue's clock in tests: it moves only when
// told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// queueAt is an execution queue of share and slots on a fake clock.
func queueAt(share, slots int) (*execQueue, *fakeClock) {
	clk := &fakeClock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	q := newExecQueue(share, slots)
	q.now = clk.now
	return q, clk
}

const (
	lateAccount = "key:k"
	far         = time.Hour // a deadline that plays no part
)

// startNow takes a slot for account, which must start at once, its
// deadline in from now (0: none).
func startNow(t *testing.T, q *execQueue, clk *fakeClock, account string, in time.Duration) *execCall {
	t.Helper()
	c, full, late := q.take(account, deadlineIn(clk, in))
	if full || late != nil || c.ready != nil {
		t.Fatalf("%s did not start at once (full %v, late %+v)", account, full, late)
	}
	return c
}

// waitNow queues a call of account, its deadline in from now.
func waitNow(t *testing.T, q *execQueue, clk *fakeClock, account string, in time.Duration) *execCall {
	t.Helper()
	c, full, late := q.take(account, deadlineIn(clk, in))
	if full || late != nil || c.ready == nil {
		t.Fatalf("%s was not queued (full %v, late %+v)", account, full, late)
	}
	return c
}

func deadlineIn(clk *fakeClock, in time.Duration) time.Time {
	if in == 0 {
		return time.Time{}
	}
	return clk.t.Add(in)
}

// ran has lateAccount run one call for each of runs, one after the
// other, each ending before its deadline.
func ran(t *testing.T, q *execQueue, clk *fakeClock, runs ...time.Duration) {
	t.Helper()
	for _, run := range runs {
		c := startNow(t, q, clk, lateAccount, far)
		clk.advance(run)
		q.release(lateAccount, c)
	}
}

// knows gives lateAccount the run time run, as if learned now (for the
// cases whose calls waiting must be queued before it is known).
func knows(q *execQueue, clk *fakeClock, run time.Duration) {
	r := &runTimes{}
	r.add(run, clk.t)
	q.learned[lateAccount] = r
}

// stoppedAt has lateAccount run one call that is stopped at its
// deadline, run after it started.
func stoppedAt(t *testing.T, q *execQueue, clk *fakeClock, run time.Duration) {
	t.Helper()
	c := startNow(t, q, clk, lateAccount, run)
	clk.advance(run)
	q.release(lateAccount, c)
}

// TestLateStart: a call that would wait is refused at once when, by what
// the queue learned of its account's runs, it could not start in time to
// run that long before its deadline; every estimate is a lower bound, so
// a call is queued whenever the queue does not know.
func TestLateStart(t *testing.T) {
	for _, tc := range []struct {
		name         string
		share, slots int
		setup        func(t *testing.T, q *execQueue, clk *fakeClock)
		deadline     time.Duration // the new call's, from now; 0: none
		late         bool
	}{
		{"no run learned yet", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			startNow(t, q, clk, lateAccount, time.Second)
		}, time.Second, false},
		{"behind a call that has just started", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, time.Second)
		}, time.Second, true},
		{"no deadline", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, 0)
		}, 0, false},
		{"behind a call about to end", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, far)
			clk.advance(900 * time.Millisecond)
		}, 1200 * time.Millisecond, false},
		{"behind a call that runs past its run time", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, 100*time.Millisecond)
			startNow(t, q, clk, lateAccount, far)
			clk.advance(5 * time.Second)
		}, 150 * time.Millisecond, false},
		{"behind a call whose deadline comes before its run time", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, 100*time.Millisecond)
		}, 1200 * time.Millisecond, false},
		{"the shortest recent run counts", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second, 10*time.Millisecond, time.Second)
			startNow(t, q, clk, lateAccount, far)
		}, 100 * time.Millisecond, false},
		{"a quick run older than the recent ones is forgotten", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, 10*time.Millisecond)
			for range recentRuns {
				ran(t, q, clk, time.Second)
			}
			startNow(t, q, clk, lateAccount, far)
		}, time.Second, true},
		{"a run stopped at its deadline does not lower the run time", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			stoppedAt(t, q, clk, 10*time.Millisecond)
			startNow(t, q, clk, lateAccount, far)
		}, time.Second, true},
		{"a run stopped at its deadline raises it", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			stoppedAt(t, q, clk, 10*time.Millisecond)
			for range recentRuns {
				stoppedAt(t, q, clk, time.Second)
			}
			startNow(t, q, clk, lateAccount, far)
		}, time.Second, true},
		{"a run time learned long ago is forgotten", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			clk.advance(learnedFor + time.Second)
			startNow(t, q, clk, lateAccount, far)
		}, time.Second, false},
		{"waiting only for the process's slots", 2, 1, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, 300*time.Millisecond)
			startNow(t, q, clk, "key:other", far)
		}, 250 * time.Millisecond, true},
		{"waiting only for the process's slots, with time to run", 2, 1, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, 300*time.Millisecond)
			startNow(t, q, clk, "key:other", far)
		}, 400 * time.Millisecond, false},
		{"two calls wait before it", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, far)
			clk.advance(900 * time.Millisecond) // its slot frees in 100 ms at the soonest
			waitNow(t, q, clk, lateAccount, far)
			waitNow(t, q, clk, lateAccount, far)
		}, 3050 * time.Millisecond, true}, // starts at 2.1 s at the soonest, runs until 3.1 s
		{"two calls wait before it, with time to run", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, far)
			clk.advance(900 * time.Millisecond)
			waitNow(t, q, clk, lateAccount, far)
			waitNow(t, q, clk, lateAccount, far)
		}, 3150 * time.Millisecond, false},
		{"a call waiting before it is stopped at its deadline", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			startNow(t, q, clk, lateAccount, far)
			clk.advance(900 * time.Millisecond)
			waitNow(t, q, clk, lateAccount, 500*time.Millisecond) // holds the slot from 0.1 s to 0.5 s at most
			waitNow(t, q, clk, lateAccount, far)                  // then until 1.5 s
			knows(q, clk, time.Second)
		}, 2550 * time.Millisecond, false},
		{"a call waiting before it never gets a slot", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			startNow(t, q, clk, lateAccount, far)
			clk.advance(900 * time.Millisecond)
			waitNow(t, q, clk, lateAccount, 50*time.Millisecond) // refused at its deadline, before the slot frees
			waitNow(t, q, clk, lateAccount, far)                 // holds it from 0.1 s to 1.1 s
			knows(q, clk, time.Second)
		}, 2150 * time.Millisecond, false},
		{"twice the share: each share's slots free in turn", 2, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			startNow(t, q, clk, lateAccount, far)
			startNow(t, q, clk, lateAccount, far)
			waitNow(t, q, clk, lateAccount, far)
			waitNow(t, q, clk, lateAccount, far)
		}, 2900 * time.Millisecond, true}, // the slots free at 1 s, then at 2 s
		{"a slot granted to a call that stopped waiting teaches nothing", 1, 0, func(t *testing.T, q *execQueue, clk *fakeClock) {
			ran(t, q, clk, time.Second)
			c := startNow(t, q, clk, lateAccount, far)
			w := waitNow(t, q, clk, lateAccount, far)
			clk.advance(time.Second)
			q.release(lateAccount, c) // grants w its slot
			q.abandon(lateAccount, w) // w's caller had gone: w never ran
			startNow(t, q, clk, lateAccount, far)
		}, 500 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, clk := queueAt(tc.share, tc.slots)
			tc.setup(t, q, clk)
			c, full, late := q.take(lateAccount, deadlineIn(clk, tc.deadline))
			if full {
				t.Fatal("refused as full")
			}
			if (late != nil) != tc.late {
				t.Fatalf("late %+v, want late %v", late, tc.late)
			}
			if late == nil && c.ready == nil {
				t.Fatal("the call started at once: the case tests nothing")
			}
		})
	}
}

// TestLearnedRunsBounded: the queue keeps the run times of at most
// maxLearned accounts, however many use it.
func TestLearnedRunsBounded(t *testing.T) {
	q, clk := queueAt(1, 0)
	for i := range maxLearned + 100 {
		account := fmt.Sprintf("address:192.0.2.%d", i)
		c := startNow(t, q, clk, account, far)
		clk.advance(time.Millisecond)
		q.release(account, c)
	}
	if len(q.learned) != maxLearned || len(q.accounts) != 0 {
		t.Fatalf("%d run times kept (want %d), %d accounts", len(q.learned), maxLearned, len(q.accounts))
	}
}

// TestTurnRefusedWhenItWouldNotStartInTime: once a key's run time is
// known, its call that would wait behind a run of that length beyond its
// deadline is refused at once with -32005 saying why, takes no slot and
// leaves nothing waiting; another key's call starts.
func TestTurnRefusedWhenItWouldNotStartInTime(t *testing.T) {
	a := New(1)
	clk := &fakeClock{t: time.Now()}
	a.exec.now = clk.now
	k := key("k", keys.Plan{CallTimeout: time.Second})
	first, refused := a.Turn(context.Background(), k, "")
	if refused != nil {
		t.Fatal(refused)
	}
	clk.advance(2 * time.Second)
	first() // a run of 2 s learned
	clk.t = time.Now()
	hold, refused := a.Turn(context.Background(), k, "")
	if refused != nil {
		t.Fatal(refused)
	}
	// Its slot frees 2 s from now at the soonest: 1 s after the deadline.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, refused = a.Turn(ctx, k, "")
	want := "this account's calls that run code hold its execution slots for at least 2s each (1 run, 0 wait before this one): this call would not start in time to run that long within its call_timeout (1s), so it did not run; wait for answers before sending more"
	if refused == nil || refused.Code != jsonrpc.CodeLimitExceeded || refused.Message != want {
		t.Fatalf("refused %v, want -32005 %q", refused, want)
	}
	if running, waiting := a.ExecutionQueue(); running != 1 || waiting != 0 {
		t.Fatalf("%d run and %d wait after the refusal, want 1 and 0", running, waiting)
	}
	other, refused := a.Turn(ctx, key("other", keys.Plan{CallTimeout: time.Second}), "")
	if refused != nil {
		t.Fatalf("another key: %v", refused)
	}
	other()
	hold()
}
