package upstream

import (
	"context"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Observer sees every attempt a pool makes (metrics, logs, traces:
// internal/telemetry). It must not decide anything.
type Observer interface {
	// StartAttempt is called before an attempt on member; the context it
	// returns is the attempt's (it may carry a span and request headers,
	// see transport.WithRequestHeader).
	StartAttempt(ctx context.Context, pool, member string) context.Context
	// EndAttempt is called after it with the attempt's context, its
	// duration and its outcome (resp may be a node-fault answer).
	EndAttempt(ctx context.Context, pool, member string, d time.Duration, resp *jsonrpc.Response, err error)
}

// startAttempt begins an observed attempt on m when the pool has an
// Observer: the context it returns is the attempt's. endAttempt reports its
// outcome (resp is nil for an upstream batch). Both are no-ops without one.
func (p *Pool) startAttempt(ctx context.Context, m *Member) (context.Context, time.Time) {
	if p.Observer == nil {
		return ctx, time.Time{}
	}
	return p.Observer.StartAttempt(ctx, p.id, m.Name()), time.Now()
}

func (p *Pool) endAttempt(ctx context.Context, m *Member, start time.Time, resp *jsonrpc.Response, err error) {
	if p.Observer != nil {
		p.Observer.EndAttempt(ctx, p.id, m.Name(), time.Since(start), resp, err)
	}
}
