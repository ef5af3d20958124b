package ratelimit

// The rule for giving Redis up: a replica switches to local limits only
// when Redis' round trips (requests and heartbeats) have failed at least
// failuresToFlip times in a row over at least two heartbeat intervals,
// with no success in between. One slow answer (a timeout on a loaded
// machine) is decided locally, from the carried-over bucket (carry.go),
// and the replica stays on the shared budget; a Redis that is really
// away fails every heartbeat and is given up after two intervals. Any
// success ends the streak; a heartbeat's success brings Redis back.
const failuresToFlip = 3

// failed counts a failed round trip and gives Redis up when the rule says so.
func (l *Limiter) failed(err error) {
	now := l.now().UnixNano()
	l.failSince.CompareAndSwap(0, now)
	n := l.failCount.Add(1)
	since := l.failSince.Load()
	if n >= failuresToFlip && since != 0 && now-since >= int64(2*l.opts.Heartbeat) {
		l.setUp(false, err)
	}
}

// succeeded ends the current streak of failures.
func (l *Limiter) succeeded() {
	if l.failCount.Load() != 0 {
		l.failCount.Store(0)
		l.failSince.Store(0)
	}
}
