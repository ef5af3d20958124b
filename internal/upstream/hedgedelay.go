package upstream

import "time"

// The hedge delay of a call (hedge.go): how long its member may take
// before the call is sent to a second member too.
//
// It is the method's latency quantile on the call's member, unless that
// is more than stallFactor times the method's quantile on the fastest
// member in service that knows it: then the fastest member's. A member
// that holds one call in ten has the held calls inside its own p99 (and
// p95), so a delay of its own quantile would never cut them (measured: 33
// of 54 held calls waited out); the fastest member's quantile does, and
// the held calls, hedged and lost, no longer count in the member's
// histogram (losers do not count), whose quantile comes back down. Among
// members alike, each keeps its own: the lowest of their noisy quantiles
// would hedge more calls for nothing. A method its member does not know
// yet (fewer than latencyMinSamples answers) is hedged after the fastest
// member's quantile of it, and one no member knows after the slowest
// method the fastest member knows: the pool's latency across methods
// stands in until the method's own is known. Nothing known: no timed
// hedge.

// stallFactor: a member whose quantile of a method is more than this
// times the fastest member's is hedged at the fastest member's.
const stallFactor = 2

// delay is the hedge delay of a call of method on member i, whose own
// histogram of the method is own (0: no latency known).
func (h *hedger) delay(i int, method string, own *latencyQuantile) time.Duration {
	d := own.quantile()
	var best time.Duration
	for j, m := range h.p.members {
		if j == i || !m.InService() {
			continue
		}
		if l := h.lat[j].lookup(method); l != nil {
			if q := l.quantile(); q > 0 && (best == 0 || q < best) {
				best = q
			}
		}
	}
	switch {
	case d > 0 && (best == 0 || d <= stallFactor*best):
		return d
	case best > 0:
		return best
	}
	return h.acrossMethods()
}

// acrossMethods is the slowest known method's quantile on the member in
// service whose slowest is fastest (0: no member knows any method).
func (h *hedger) acrossMethods() time.Duration {
	var d time.Duration
	for j, m := range h.p.members {
		if !m.InService() {
			continue
		}
		if q := h.lat[j].slowest(); q > 0 && (d == 0 || q < d) {
			d = q
		}
	}
	return d
}
