package pipeline

import (
	"context"
	"fmt"
	"sync"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// executionMethods run the EVM for as long as their gas lasts: each is
// bounded by its key's plan's call_timeout.
var executionMethods = map[string]bool{"eth_call": true, "eth_estimateGas": true}

// executionLimits bounds eth_call and eth_estimateGas: on a network whose
// node runs on this process (EVM.ExecutionShare), a key runs only its
// share of them at once, so that no key takes every CPU; and each runs
// within its plan's call_timeout. The deadline reaches the node with the
// call: the embedded node stops the EVM at it; an upstream's request is
// cancelled (JSON-RPC has no standard way to send a node a time limit, so
// a remote node stops at its own limit, go-ethereum's --rpc.evmtimeout).
// Past the deadline the call answers go-ethereum's own words for it.
type executionLimits struct {
	share  int      // calls of one key at once; 0: no bound
	shares sync.Map // key id → chan struct{} of share turns
}

func newExecutionLimits(share int) *executionLimits { return &executionLimits{share: share} }

func (*executionLimits) Name() string { return "executionLimits" }

func (e *executionLimits) Wrap(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if !executionMethods[c.Req.Method] {
			return next(ctx, c)
		}
		release, err := e.turn(ctx, c.Key)
		if err != nil {
			return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("request cancelled"))
		}
		defer release()
		timeout := keys.DefaultCallTimeout
		if c.Key != nil {
			timeout = c.Key.Plan.ExecutionTimeout()
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp := next(cctx, c)
		// The node may answer at the deadline a little before cctx's own
		// timer fires (go-ethereum's "request timed out"): Expired looks
		// at the clock.
		if resp.Err != nil && ctx.Err() == nil && upstream.Expired(cctx) {
			return jsonrpc.ErrorResponse(jsonrpc.NewError(jsonrpc.CodeServerError, fmt.Sprintf("execution aborted (timeout = %v)", timeout)))
		}
		return resp
	}
}

// turn waits until key may run one more execution call.
func (e *executionLimits) turn(ctx context.Context, key *keys.Key) (release func(), err error) {
	if e.share <= 0 || key == nil {
		return func() {}, nil
	}
	v, ok := e.shares.Load(key.ID)
	if !ok {
		v, _ = e.shares.LoadOrStore(key.ID, make(chan struct{}, e.share))
	}
	turns := v.(chan struct{})
	select {
	case turns <- struct{}{}:
		return func() { <-turns }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for an execution turn: %w", ctx.Err())
	}
}
