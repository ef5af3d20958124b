package pipeline

import (
	"sync"
	"time"
)

// workers runs a batch's calls on goroutines that are kept for the next
// batch instead of ending. A call goes through every stage, a dozen frames
// deep; a fresh goroutine starts with a small stack and grows it by
// copying on each call, which cost a batch of ten more CPU than its calls'
// own work. A kept goroutine has already grown its stack.
//
// A worker waits stay for its next call, then ends: the pool holds only
// as many goroutines as recent load needed.
type workers struct {
	stay time.Duration // how long a worker without work stays

	mu      sync.Mutex
	idle    []chan func() // each idle worker's inbox, most recently idle last
	spawned int           // goroutines started so far
}

// batchWorkers is the process's pool: batches of every pipeline share it.
var batchWorkers = workers{stay: 10 * time.Second}

// Go runs fn on an idle worker, or on a new one when none is idle.
func (w *workers) Go(fn func()) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		inbox := w.idle[n-1]
		w.idle[n-1] = nil
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		inbox <- fn // buffered: never blocks
		return
	}
	w.spawned++
	w.mu.Unlock()
	go w.work(fn)
}

// work runs fn, then the calls handed to it while idle, until it has been
// idle for w.stay.
func (w *workers) work(fn func()) {
	inbox := make(chan func(), 1)
	timer := time.NewTimer(w.stay)
	defer timer.Stop()
	for {
		fn()
		fn = nil
		w.mu.Lock()
		w.idle = append(w.idle, inbox)
		w.mu.Unlock()
		timer.Reset(w.stay)
		select {
		case fn = <-inbox:
		case <-timer.C:
			if !w.leave(inbox) {
				fn = <-inbox // handed work just as it timed out
				continue
			}
			return
		}
	}
}

// leave takes inbox off the idle list; false when Go already took it (and
// a call is on its way).
func (w *workers) leave(inbox chan func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, c := range w.idle {
		if c == inbox {
			w.idle = append(w.idle[:i], w.idle[i+1:]...)
			return true
		}
	}
	return false
}
