package pipeline

import (
	"context"
	"fmt"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/deadline"
	"github.com/nodegate/nodegate/internal/plan"
	"github.com/nodegate/nodegate/jsonrpc"
)

// executionLimits bounds the methods that run code (methods.Rule.Executes:
// eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1,
// eth_fillTransaction, unlisted methods…): on a network whose node runs on
// this process (EVM.Execution), they take the process's execution slots in
// turns between accounts, an account at most its share of them at once,
// so that no key takes every CPU; and each answers within its plan's
// call_timeout, counted from its arrival (a call that could not start
// within it, or by what its account's runs took could not start in time
// to run, is refused with -32005 and never runs: admission.Turn). The
// deadline reaches the node with the call: the embedded
// node stops the EVM at it; an upstream's request is cancelled (JSON-RPC
// has no standard way to send a node a time limit, so a remote node stops
// at its own limit, go-ethereum's --rpc.evmtimeout). Past the deadline the
// call answers go-ethereum's own words for it.
//
// The turns are counted by the process's admission.Keys (Turn), not here:
// one queue per process, across networks and the rebuilds of a reload.
//
// A node may go on running a call after its deadline (an upstream
// go-ethereum's eth_createAccessList checks it only between its runs of
// the transaction; the embedded node cancels each run:
// evmnode/cancel_runs.go): the caller is answered at the deadline, and the key's turn
// is held until the node is done, so that what runs on past the deadline
// still counts in the key's share.
type executionLimits struct {
	turns *admission.Keys // nil or without a share: no bound
}

func newExecutionLimits(turns *admission.Keys) *executionLimits {
	if turns != nil && turns.ExecutionShare() <= 0 {
		turns = nil
	}
	return &executionLimits{turns: turns}
}

func (*executionLimits) Name() string { return "executionLimits" }

func (e *executionLimits) Wrap(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule == nil || !c.Rule.Executes {
			return next(ctx, c)
		}
		timeout := plan.DefaultCallTimeout
		if c.Key != nil {
			timeout = c.Key.Plan.ExecutionTimeout()
		}
		// The deadline counts from the call's arrival: waiting for a turn
		// is part of it.
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		release, refused := e.turn(cctx, c)
		if refused != nil {
			return jsonrpc.ErrorResponse(refused)
		}
		resp := e.run(cctx, next, c, release)
		// The node may answer at the deadline a little before cctx's own
		// timer fires (go-ethereum's "request timed out"): Expired looks
		// at the clock.
		if (resp == nil || resp.Err != nil) && ctx.Err() == nil && deadline.Expired(cctx) {
			return jsonrpc.ErrorResponse(jsonrpc.NewError(jsonrpc.CodeServerError, fmt.Sprintf("execution aborted (timeout = %v)", timeout)))
		}
		if resp == nil { // the caller gave up
			return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("request cancelled"))
		}
		return resp
	}
}

// run calls next and releases the key's turn when next returns. Without a
// share, that is all. With one, next runs on its own goroutine (on a copy
// of the call, which it may change) and run returns nil at ctx's end
// without waiting for it: the turn stays taken until the node is done.
func (e *executionLimits) run(ctx context.Context, next Handler, c *Call, release func()) *jsonrpc.Response {
	if e.turns == nil {
		defer release()
		return next(ctx, c)
	}
	done := make(chan *jsonrpc.Response, 1)
	sub := c.Sub(c.Req.Params)
	go func() {
		defer release()
		done <- recoverCalls(next)(ctx, sub) // the recover stage is on the caller's goroutine
	}()
	select {
	case resp := <-done:
		return resp
	case <-ctx.Done():
		return nil
	}
}

// turn waits until c's account may run one more execution call, or
// refuses it.
func (e *executionLimits) turn(ctx context.Context, c *Call) (release func(), refused *jsonrpc.Error) {
	if e.turns == nil {
		return func() {}, nil
	}
	return e.turns.Turn(ctx, c.Key, c.Client.Remote)
}
