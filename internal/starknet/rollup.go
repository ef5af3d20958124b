package starknet

import (
	"bytes"
	"context"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Rollup is the upstream of a starknet network: it answers the two
// pending-transactions methods through Pending and passes every other body
// to the node untouched. It lets a starknet network plug into the pipeline's
// route step with no change there: set it as the network's Upstream.
type Rollup struct {
	inner   upstream.Upstream
	pending *Pending
}

// NewRollup wraps a Starknet node.
func NewRollup(inner upstream.Upstream, mode PendingMode) (*Rollup, error) {
	p, err := NewPending(inner, mode)
	if err != nil {
		return nil, err
	}
	return &Rollup{inner: inner, pending: p}, nil
}

// Pending is the rollup's pending-transactions reader (for Detect at start).
func (r *Rollup) Pending() *Pending { return r.pending }

// Name implements upstream.Upstream.
func (r *Rollup) Name() string { return r.inner.Name() }

// pendingMarker is in every body that names either pending method; bodies
// without it go straight to the node without being parsed.
var pendingMarker = []byte("endingTransactions")

// Do implements upstream.Upstream. A single request for a pending method is
// answered here; anything else, batches included, goes to the node as is
// (the pipeline sends single requests).
// Unbatched tells the pool (upstream.Unbatched) to send the rollup one call
// per request: it answers the pending-transactions methods itself.
func (*Rollup) Unbatched() {}

func (r *Rollup) Do(ctx context.Context, body []byte) ([]byte, error) {
	if !bytes.Contains(body, pendingMarker) {
		return r.inner.Do(ctx, body)
	}
	msgs, batch, perr := jsonrpc.Parse(body, 1)
	if perr != nil || batch || msgs[0].Err != nil || !IsPendingMethod(msgs[0].Req.Method) {
		return r.inner.Do(ctx, body)
	}
	req := msgs[0].Req
	res, e, err := r.pending.serve(ctx, req.Method, req.Params)
	if err != nil {
		return nil, err
	}
	resp := &jsonrpc.Response{Result: res, Err: e}
	return jsonrpc.AppendResponse(make([]byte, 0, len(res)+64), req.ID, resp), nil
}
