package upstream

import (
	"context"
	"sync/atomic"
)

// DefaultMaxPendingWrites bounds the deliveries of broadcast writes one
// member has pending at once (PoolConfig.MaxPendingWrites): a slow member
// holds at most this many requests (and descriptors) for writes, whatever
// the clients send.
const DefaultMaxPendingWrites = 64

// pendingWrites are a member's broadcast deliveries: those pending now, and
// those not sent to it because it had its bound pending (dropped).
type pendingWrites struct {
	pending, dropped atomic.Int64
}

// take reserves a delivery to the member, or counts it dropped when the
// member has limit pending.
func (w *pendingWrites) take(limit int) bool {
	for {
		n := w.pending.Load()
		if n >= int64(limit) {
			w.dropped.Add(1)
			return false
		}
		if w.pending.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// done gives a delivery's place back.
func (w *pendingWrites) done() { w.pending.Add(-1) }

// maxPendingWrites is the pool's bound on one member's pending deliveries.
func (c PoolConfig) maxPendingWrites() int {
	if c.MaxPendingWrites > 0 {
		return c.MaxPendingWrites
	}
	return DefaultMaxPendingWrites
}

type holdKey struct{}

// WithHold is ctx carrying hold: what the caller counts a broadcast's
// deliveries in once the call is answered and they still run (the key's
// calls in flight, internal/admission). hold counts one use and returns
// what gives it back; the broadcast calls it at most once per call, and
// the release once its last delivery ended.
func WithHold(ctx context.Context, hold func() (release func())) context.Context {
	return context.WithValue(ctx, holdKey{}, hold)
}

// holdOf is ctx's hold, or one that counts nothing.
func holdOf(ctx context.Context) func() (release func()) {
	if h, ok := ctx.Value(holdKey{}).(func() (release func())); ok && h != nil {
		return h
	}
	return func() func() { return func() {} }
}
