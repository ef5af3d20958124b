package admission

import (
	"time"
)

// What the execution queue learns of each account's runs, and what it
// draws from them: a call that could not start early enough to run its
// account's run time before its deadline is refused when it asks (take
// answers late), not after waiting its whole call_timeout.
//
// A run is how long one call held its slot: from the slot's grant to its
// release, which for a run the node goes on with past its caller's
// deadline is when the node is done. An account's run time is the
// shortest of its last recentRuns runs, not a mean: it must be a lower
// bound on what its next call will take, so that a wrong estimate errs
// toward queueing a call that then waits (and is refused at its deadline,
// the backstop) rather than toward refusing one that would have run. One
// quick run brings it down at once (an account whose calls got cheap is
// not refused on old figures); it rises only once all of the last
// recentRuns runs were long (an account that loops calls stopped at their
// deadline). A run stopped at its deadline shows only that the call's
// work is at least that long (one granted its slot just before its
// deadline runs a moment): it may raise the run time, never lower it. A
// call that got its slot after it stopped waiting never ran and teaches
// nothing.
//
// Without a run time (an account's first calls, or one whose latest run
// ended more than learnedFor ago), nothing is refused early.

const (
	// recentRuns is how many of an account's latest runs its run time is
	// the shortest of.
	recentRuns = 8
	// learnedFor is how long an account's run time is kept after its
	// latest run ended: long enough for a client that sends its calls one
	// after the other, or in waves, to be known between them; short
	// enough that what an account ran minutes ago does not judge its calls
	// now.
	learnedFor = time.Minute
	// maxLearned bounds the accounts whose run times are kept (about
	// 100 bytes each). Past it, one kept at random is forgotten for each
	// new one: many accounts (addresses without a key) can only make the
	// queue forget, that is queue calls rather than refuse them.
	maxLearned = 4096
)

// runTimes is one account's latest runs.
type runTimes struct {
	recent [recentRuns]time.Duration
	n      int       // runs held (up to recentRuns)
	next   int       // where the next run goes
	ended  time.Time // when the latest ended
}

func (r *runTimes) add(run time.Duration, ended time.Time) {
	r.recent[r.next] = run
	r.next = (r.next + 1) % recentRuns
	r.n = min(r.n+1, recentRuns)
	r.ended = ended
}

// shortest is the shortest of the runs held (0 with none).
func (r *runTimes) shortest() time.Duration {
	s := r.recent[0]
	for _, d := range r.recent[1:r.n] {
		s = min(s, d)
	}
	return s
}

// learn records that c, a call of account, held its slot until ended.
// Under q.mu.
func (q *execQueue) learn(account string, c *execCall, ended time.Time) {
	run := max(ended.Sub(c.started), 0)
	r := q.learned[account]
	switch {
	case r == nil:
		if len(q.learned) >= maxLearned {
			for k := range q.learned {
				delete(q.learned, k)
				break
			}
		}
		r = &runTimes{}
		q.learned[account] = r
	case !c.deadline.IsZero() && !ended.Before(c.deadline):
		run = max(run, r.shortest()) // stopped at its deadline: at least this long
	}
	r.add(run, ended)
}

// runTime is account's run time, false when none is known now. Under
// q.mu.
func (q *execQueue) runTime(account string, now time.Time) (time.Duration, bool) {
	r := q.learned[account]
	if r == nil {
		return 0, false
	}
	if now.Sub(r.ended) > learnedFor {
		delete(q.learned, account)
		return 0, false
	}
	return r.shortest(), true
}

// lateStart is why a call could not run in time: its account's calls
// hold a slot at least run each, running of them run and ahead wait
// before it.
type lateStart struct {
	run            time.Duration
	running, ahead int
}

// lateStart is nil when a call of a that would wait now may start early
// enough to run a's run time before deadline (zero: none), else why not.
//
// Its start is no sooner than what this reckons, a lower bound: the
// account's share of slots frees at each running call's end (its start
// plus the run time, or its deadline if sooner, never before now; now
// for a share slot not taken, one the call waits for only because the
// process's slots are), and each call waiting before it takes the
// soonest free one in turn and holds it the run time or until its own
// deadline, if sooner (one whose deadline comes before a slot does never
// takes one). The other accounts' turns (execqueue.go) only add to the
// wait: leaving them out keeps it a lower bound. Under q.mu.
func (q *execQueue) lateStart(a *execAccount, now, deadline time.Time) *lateStart {
	if deadline.IsZero() {
		return nil
	}
	run, known := q.runTime(a.name, now)
	if !known {
		return nil
	}
	free := make([]time.Time, q.share) // when each of a's share of slots frees
	for i := range free {
		free[i] = now
		if i < len(a.running) {
			free[i] = later(now, endOf(a.running[i].started, run, a.running[i].deadline))
		}
	}
	for _, w := range a.waiting {
		i := soonest(free)
		if !w.deadline.IsZero() && !free[i].Before(w.deadline) {
			continue // refused at its deadline, before a slot frees
		}
		free[i] = endOf(free[i], run, w.deadline)
	}
	if start := free[soonest(free)]; !start.Add(run).After(deadline) {
		return nil
	}
	return &lateStart{run: run, running: len(a.running), ahead: len(a.waiting)}
}

// endOf is the soonest end of a run started at start: start plus run, or
// deadline (zero: none) if sooner.
func endOf(start time.Time, run time.Duration, deadline time.Time) time.Time {
	end := start.Add(run)
	if !deadline.IsZero() && deadline.Before(end) {
		return deadline
	}
	return end
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// soonest is the index of the soonest of times (not empty).
func soonest(times []time.Time) int {
	s := 0
	for i, t := range times[1:] {
		if t.Before(times[s]) {
			s = i + 1
		}
	}
	return s
}
