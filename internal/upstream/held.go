package upstream

import (
	"math"
	"sync/atomic"
	"time"
)

// How often a member holds its calls, and what that costs the choice
// (choose.go). A watched attempt (hedgewatch.go) still unanswered at its
// hedge delay and hedged was held (overtaken); one answered within its
// delay was not; one due for a hedge the budget did not allow counts
// neither way (the budget is spent when the pool as a whole is late: a
// loaded machine, not one member). Each member keeps a decaying rate of
// its held attempts — only the event counts, never the time a held or
// losing attempt took: losers stay out of the latency histogram and the
// EWMA (hedge.go). The rate also halves every heldHalfLife calls the pool
// watches, whoever they go to: a member that gets few calls (because it
// held them, or because a passing load made it late) is forgiven in time,
// gets calls again, and shows whether it still holds them.
//
// The choice adds to a member's expected wait the cost of picking it: its
// held rate beyond an allowance (the other candidate's and a little more:
// see heldCost), times the hedge delay its calls were last overtaken at plus
// the other candidate's latency (what a held call waits: the delay, then a
// second answer). That cost is weighed up by 1/(1−quantile): a held call
// is a call in the client's slowest (1−quantile) of calls, and what a
// member that holds one call in ten costs is the client's p99, not its
// mean. A member that holds 10 % of its calls behind a healthy peer then
// gets a few percent of the calls instead of half; one pick in
// heldExplore leaves the cost out, so that it still gets some, its rate
// decays back when it recovers, and it regains its share.

const (
	// heldScale is a held rate of 1 in the fixed point of heldRate.
	heldScale = 1 << 24
	// heldShift: each of a member's watched attempts moves its held rate
	// 1/2^heldShift of the way to 1 (held) or 0 (answered in time).
	heldShift = 6
	// heldNoise is the part of the rate one held attempt makes: one held
	// attempt among the last few dozen is not a member that holds calls.
	heldNoise = 1.0 / (1 << heldShift)
	// heldHalfLife: the rate halves every heldHalfLife watched calls of
	// the pool.
	heldHalfLife = 2048
	// heldExplore: one pick in heldExplore leaves the held cost out.
	heldExplore = 32
)

// heldRate is one member's decaying rate of held attempts: the rate (in
// heldScale) in the low 32 bits, the pool's watched-call count when it
// was last set in the high 32.
type heldRate struct {
	packed atomic.Uint64
	delay  atomic.Int64 // ns: the hedge delay its last held attempt passed
}

// at is the rate at the pool's watched-call count now.
func (h *heldRate) at(now uint32) float64 {
	v := h.packed.Load()
	r := float64(uint32(v)) / heldScale
	if r == 0 {
		return 0
	}
	return r * math.Exp2(-float64(now-uint32(v>>32))/heldHalfLife)
}

// note counts one watched attempt at the pool's count now: held (its
// delay d passed before it answered) or not.
func (h *heldRate) note(held bool, d time.Duration, now uint32) {
	if held {
		h.delay.Store(int64(d))
	}
	for {
		old := h.packed.Load()
		r := float64(uint32(old)) / heldScale
		if r != 0 {
			r *= math.Exp2(-float64(now-uint32(old>>32)) / heldHalfLife)
		}
		r -= r / (1 << heldShift)
		if held {
			r += 1.0 / (1 << heldShift)
		}
		if h.packed.CompareAndSwap(old, uint64(now)<<32|uint64(uint32(r*heldScale))) {
			return
		}
	}
}

// heldCost is what picking m costs beyond its expected wait, in
// nanoseconds, when other is the alternative, at the pool's watched-call
// count now: m's held rate beyond the allowance — other's rate, plus the
// share the hedge quantile lets through (tail = 1−quantile) and one held
// attempt's part of the rate — weighed up by 1/tail, times the delay its
// held calls waited plus other's latency. Members alike hold alike (a
// loaded machine makes both late), and their rates' noise mostly stays
// within the allowance; a member that holds one call in ten more than the
// other does not.
func (m *Member) heldCost(other *Member, tail float64, now uint32) float64 {
	r := m.held.at(now)
	allow := other.held.at(now) + tail + heldNoise
	if r <= allow {
		return 0
	}
	wait := float64(m.held.delay.Load()) + float64(other.latency.Load())
	return (r - allow) / tail * wait
}
