package upstream

import (
	"context"
	"errors"
	"fmt"
)

// Upstream is one node nodegate forwards to.
type Upstream interface {
	// Name identifies the upstream in logs and metrics.
	Name() string
	// Do sends a raw JSON-RPC body (one request or a batch) and returns the
	// raw response body.
	Do(ctx context.Context, body []byte) ([]byte, error)
}

// Error is a node-side failure: the node could not be reached or did not
// answer with JSON-RPC. Such failures may be retried elsewhere.
type Error struct {
	Upstream string
	Status   int // HTTP status when the node answered with one, else 0
	Err      error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("upstream %s: HTTP %d: %v", e.Upstream, e.Status, e.Err)
	}
	return fmt.Sprintf("upstream %s: %v", e.Upstream, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// IsNodeFault reports whether err is a failure of the node rather than an answer.
func IsNodeFault(err error) bool {
	var ue *Error
	return errors.As(err, &ue)
}

// Func adapts a function (such as the embedded node's Do) to Upstream.
type Func struct {
	ID string
	Fn func(ctx context.Context, body []byte) ([]byte, error)
	// Heads, when set, pushes new head numbers (see HeadSource).
	Heads func(ctx context.Context, fn func(number uint64)) error
}

// SubscribeHeads implements HeadSource when Heads is set.
func (f Func) SubscribeHeads(ctx context.Context, fn func(number uint64)) error {
	if f.Heads == nil {
		<-ctx.Done() // nothing to push: the pool polls
		return ctx.Err()
	}
	return f.Heads(ctx, fn)
}

// Name implements Upstream.
func (f Func) Name() string { return f.ID }

// Do implements Upstream.
func (f Func) Do(ctx context.Context, body []byte) ([]byte, error) {
	out, err := f.Fn(ctx, body)
	if err != nil {
		return nil, &Error{Upstream: f.ID, Err: err}
	}
	return out, nil
}
