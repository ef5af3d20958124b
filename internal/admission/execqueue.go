package admission

import (
	"sync"
)

// execQueue shares the process's execution slots (the calls that run code
// on the embedded node at once) between accounts, in turns: a slot that
// frees goes to the account whose turn is next among those waiting, not to
// whichever call asked first, so that an account that loops heavy calls
// waits its turn like every other and cannot hold the slots. Within an
// account, calls start in the order they asked.
//
// An account runs at most share calls at once (its share of the slots,
// even when the others are free) and has at most share more waiting; a
// call past that is refused at once (take answers full), not queued.
// Without slots (0) only the share bounds an account.
type execQueue struct {
	mu       sync.Mutex
	slots    int // 0: no process-wide bound
	running  int // slots taken
	share    int
	accounts map[string]*execAccount // accounts with calls running or waiting
	// ring is the accounts with calls waiting, in the order of their
	// turns: the first eligible one gets the next free slot, then goes to
	// the end.
	ring []*execAccount
}

// execAccount is one account's calls running and waiting (oldest first).
type execAccount struct {
	name    string
	running int
	waiting []*execWaiter
}

// execWaiter is one call waiting for a slot: ready is closed when it got
// one (granted, set under the queue's lock).
type execWaiter struct {
	ready   chan struct{}
	granted bool
}

func newExecQueue(share, slots int) *execQueue {
	return &execQueue{share: share, slots: max(slots, 0), accounts: make(map[string]*execAccount)}
}

// take starts a call of account now (started), queues it (w, to wait on),
// or refuses it (full: the account already has its share waiting).
func (q *execQueue) take(account string) (w *execWaiter, started, full bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.accounts[account]
	if a == nil {
		a = &execAccount{name: account}
		q.accounts[account] = a
	}
	if len(a.waiting) == 0 && a.running < q.share && (q.slots == 0 || q.running < q.slots) {
		a.running++
		q.running++
		return nil, true, false
	}
	if len(a.waiting) >= q.share {
		q.forget(a)
		return nil, false, true
	}
	w = &execWaiter{ready: make(chan struct{})}
	if len(a.waiting) == 0 {
		q.ring = append(q.ring, a)
	}
	a.waiting = append(a.waiting, w)
	return w, false, false
}

// release gives back a slot of account and starts the next calls in turn.
func (q *execQueue) release(account string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.accounts[account]
	a.running--
	q.running--
	q.dispatch()
	q.forget(a)
}

// abandon takes w, a call of account that stopped waiting, out of the
// queue; true when it had been granted a slot meanwhile (the caller then
// releases it).
func (q *execQueue) abandon(account string, w *execWaiter) (granted bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		return true
	}
	a := q.accounts[account]
	for i, x := range a.waiting {
		if x == w {
			a.waiting = append(a.waiting[:i], a.waiting[i+1:]...)
			break
		}
	}
	if len(a.waiting) == 0 {
		q.leaveRing(a)
	}
	q.forget(a)
	return false
}

// dispatch gives free slots to waiting calls, one account after another
// in the ring's order; an account served goes to the ring's end.
func (q *execQueue) dispatch() {
	for q.slots == 0 || q.running < q.slots {
		i := 0
		for i < len(q.ring) && q.ring[i].running >= q.share {
			i++
		}
		if i == len(q.ring) {
			return
		}
		a := q.ring[i]
		w := a.waiting[0]
		a.waiting = a.waiting[1:]
		a.running++
		q.running++
		w.granted = true
		close(w.ready)
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
// that the queue holds only the accounts using it.
func (q *execQueue) forget(a *execAccount) {
	if a.running == 0 && len(a.waiting) == 0 {
		delete(q.accounts, a.name)
	}
}

// runningOf is how many calls account runs now.
func (q *execQueue) runningOf(account string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if a := q.accounts[account]; a != nil {
		return a.running
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
