package subs

import "sync/atomic"

// Stats are a hub's counters, for metrics.
type Stats struct {
	// Subscriptions is the number of client subscriptions open now.
	Subscriptions int64
	// Sent counts notifications handed to a client's connection; Dropped
	// those given up before (a subscription whose answer was pending held
	// more than MaxHeld).
	Sent, Dropped uint64
}

type hubStats struct {
	subs          atomic.Int64
	sent, dropped atomic.Uint64
}

// Stats reads the hub's counters.
func (h *Hub) Stats() Stats {
	return Stats{Subscriptions: h.stats.subs.Load(), Sent: h.stats.sent.Load(), Dropped: h.stats.dropped.Load()}
}
