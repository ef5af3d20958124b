package admission

import (
	"context"
	"errors"
	"fmt"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Turn waits until a call that runs code on this process's CPUs may start,
// within ctx (whose deadline is the call's: its plan's call_timeout from
// when it arrived), and returns the release of its slot, called once when
// the node is done with the call (which may be after its caller was
// answered).
//
// The process's execution slots (NewWithSlots) are shared in turns between
// accounts (execqueue.go): a dashboard key's account, an operator key
// itself, or the client's address (remote) for a call without a key. An
// account runs at most ExecutionShare calls at once and has at most
// max(share, MaxExecutionWaiting) more waiting. A call that would wait past those is refused at once, one
// whose deadline passes while it waits is refused then; both answer -32005
// and never run. A Keys without a share bounds nothing.
func (a *Keys) Turn(ctx context.Context, key *keys.Key, remote string) (release func(), refused *jsonrpc.Error) {
	if a.exec == nil {
		return nothing, nil
	}
	account := Account(key, remote)
	w, started, full := a.exec.take(account)
	switch {
	case started:
		return a.releaseOf(account), nil
	case full:
		return nil, ErrExecutionQueueFull(a.executionShare)
	}
	select {
	case <-w.ready:
		return a.releaseOf(account), nil
	case <-ctx.Done():
		if a.exec.abandon(account, w) {
			a.exec.release(account)
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ErrExecutionNotStarted(callTimeoutOf(key))
		}
		return nil, jsonrpc.ErrInternal("request cancelled")
	}
}

// releaseOf is the release of one slot of account, which does something
// the first time only.
func (a *Keys) releaseOf(account string) func() {
	var done bool
	return func() {
		if !done {
			done = true
			a.exec.release(account)
		}
	}
}

// callTimeoutOf is the call_timeout a call of key runs within.
func callTimeoutOf(key *keys.Key) string {
	if key == nil {
		return keys.Plan{}.ExecutionTimeout().String()
	}
	return key.Plan.ExecutionTimeout().String()
}

// ErrExecutionQueueFull answers a call that runs code when its account
// already has its share of execution calls running and as many waiting.
func ErrExecutionQueueFull(share int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"too many calls that run code for this account: %d run and %d wait for the node's execution slots; wait for answers before sending more", share, max(share, MaxExecutionWaiting)))
}

// ErrExecutionNotStarted answers a call that runs code when no execution
// slot came free for it within its plan's call_timeout: it did not run.
func ErrExecutionNotStarted(callTimeout string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"the node's execution slots were busy for this call's whole call_timeout (%s): it did not run; try again", callTimeout))
}
