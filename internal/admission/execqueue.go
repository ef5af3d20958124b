package admission

import (
	"sync"
	"time"
)

// execQueue shares the process's execution slots (the calls that run code
// on the embedded node at once) between accounts, in turns: a slot that
// frees goes to the account whose turn is next among those waiting, not to
// whichever call asked first, so that an account that loops heavy calls
// waits its turn like every other and cannot hold the slots. Within an
// account, calls start in the order they asked.
//
// An account runs at most share calls at once (its share of the slots,
// even when the others are free) and has at most max(share,
// MaxExecutionWaiting) more waiting; a
// call past that is refused at once (take answers full), not queued. So
// is a call that could not start in time to run before its deadline, by
// what the queue learned of its account's runs (runtimes.go: take answers
// late).
// Without slots (0) only the share bounds an account.
type execQueue struct {
	mu      sync.Mutex
	now     func() time.Time // the clock (time.Now; tests set their own)
	slots   int              // 0: no process-wide bound
	running int              // slots taken
	share   int
	// maxWaiting, when set, replaces the bound on an account's calls
	// waiting (waitingBound); tests set it to see refusals with few calls.
	maxWaiting int
	accounts   map[string]*execAccount // accounts with calls running or waiting
	// ring is the accounts with calls waiting, in the order of their
	// turns: the first eligible one gets the next free slot, then goes to
	// the end.
	ring []*execAccount
	// learned is how long accounts' recent calls held their slots
	// (runtimes.go), kept a while after an account's last call.
	learned map[string]*runTimes
}

// execAccount is one account's calls running and waiting (oldest first).
type execAccount struct {
	name    string
	running []*execCall
	waiting []*execCall
}

// execCall is one call that took a slot or waits for one. A call that
// waits has ready, closed when it got a slot (granted, set under the
// queue's lock); a call started at once has none. started is when it got
// its slot (under the queue's lock); deadline its context's (zero: none).
type execCall struct {
	ready    chan struct{}
	granted  bool
	started  time.Time
	deadline time.Time
}

// MaxExecutionWaiting is how many calls that run code one account may have
// waiting for a slot (at least its share): room for one client batch's
// calls at once (the pipeline runs up to 16 of a batch together) and a few
// more. It bounds memory, not time: a call still waiting when its
// call_timeout passes is refused then, and never runs (Keys.Turn); one
// that by its account's run times could not start in time to run is
// refused when it asks (runtimes.go).
const MaxExecutionWaiting = 32

func (q *execQueue) waitingBound() int {
	if q.maxWaiting > 0 {
		return q.maxWaiting
	}
	return max(q.share, MaxExecutionWaiting)
}

func newExecQueue(share, slots int) *execQueue {
	return &execQueue{now: time.Now, share: share, slots: max(slots, 0),
		accounts: make(map[string]*execAccount), learned: make(map[string]*runTimes)}
}

// take starts a call of account now (c, with no ready to wait on), queues
// it (c, to wait on its ready), or refuses it: full when the account
// already has its share waiting, late when the call could not start early
// enough to run its account's run time before deadline (zero: none), by
// the queue's lower bound on its start (runtimes.go).
func (q *execQueue) take(account string, deadline time.Time) (c *execCall, full bool, late *lateStart) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	a := q.accounts[account]
	if a == nil {
		a = &execAccount{name: account}
		q.accounts[account] = a
	}
	if len(a.waiting) == 0 && len(a.running) < q.share && (q.slots == 0 || q.running < q.slots) {
		c = &execCall{granted: true, started: now, deadline: deadline}
		a.running = append(a.running, c)
		q.running++
		return c, false, nil
	}
	if len(a.waiting) >= q.waitingBound() {
		q.forget(a)
		return nil, true, nil
	}
	if late = q.lateStart(a, now, deadline); late != nil {
		q.forget(a)
		return nil, false, late
	}
	c = &execCall{ready: make(chan struct{}), deadline: deadline}
	if len(a.waiting) == 0 {
		q.ring = append(q.ring, a)
	}
	a.waiting = append(a.waiting, c)
	return c, false, nil
}

// release gives back c's slot, a call of account that ran, learns how
// long c held it, and starts the next calls in turn.
func (q *execQueue) release(account string, c *execCall) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.learn(account, c, q.now())
	q.free(q.accounts[account], c)
}

// free gives back c's slot, a call of a, and starts the next calls in
// turn. Under q.mu.
func (q *execQueue) free(a *execAccount, c *execCall) {
	a.running = remove(a.running, c)
	q.running--
	q.dispatch()
	q.forget(a)
}

// abandon takes c, a call of account that stopped waiting, out of the
// queue, or gives back the slot it was granted meanwhile, which it never
// ran in (nothing learned).
func (q *execQueue) abandon(account string, c *execCall) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.accounts[account]
	if c.granted {
		q.free(a, c)
		return
	}
	a.waiting = remove(a.waiting, c)
	if len(a.waiting) == 0 {
		q.leaveRing(a)
	}
	q.forget(a)
}

// dispatch gives free slots to waiting calls, one account after another
// in the ring's order; an account served goes to the ring's end.
func (q *execQueue) dispatch() {
	for q.slots == 0 || q.running < q.slots {
		i := 0
		for i < len(q.ring) && len(q.ring[i].running) >= q.share {
			i++
		}
		if i == len(q.ring) {
			return
		}
		a := q.ring[i]
		c := a.waiting[0]
		a.waiting = a.waiting[1:]
		a.running = append(a.running, c)
		q.running++
		c.granted = true
		c.started = q.now()
		close(c.ready)
		q.ring = append(q.ring[:i], q.ring[i+1:]...)
		if len(a.waiting) > 0 {
			q.ring = append(q.ring, a)
		}
	}
}

// leaveRing takes a out of the ring.
func (q *execQueue) leaveRing(a *execAccount) {
	for i, x := range q.ring {
		if x == a {
			q.ring = append(q.ring[:i], q.ring[i+1:]...)
			return
		}
	}
}

// forget drops a's record once it has nothing running or waiting, so
// that the queue holds only the accounts using it (what it learned of
// their runs is kept apart: runtimes.go).
func (q *execQueue) forget(a *execAccount) {
	if len(a.running) == 0 && len(a.waiting) == 0 {
		delete(q.accounts, a.name)
	}
}

// remove is calls without c (the order of the others kept).
func remove(calls []*execCall, c *execCall) []*execCall {
	for i, x := range calls {
		if x == c {
			return append(calls[:i], calls[i+1:]...)
		}
	}
	return calls
}

// runningOf is how many calls account runs now.
func (q *execQueue) runningOf(account string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if a := q.accounts[account]; a != nil {
		return len(a.running)
	}
	return 0
}

// ExecutionQueue is how many calls that run code run and wait now, every
// account together (0, 0 without a share).
func (a *Keys) ExecutionQueue() (running, waiting int) {
	if a.exec == nil {
		return 0, 0
	}
	a.exec.mu.Lock()
	defer a.exec.mu.Unlock()
	for _, acc := range a.exec.accounts {
		waiting += len(acc.waiting)
	}
	return a.exec.running, waiting
}
