package admission

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// max(share, MaxExecutionWaiting) more waiting. A call that would wait past
// those is refused at once; so is one that would not start in time to
// run as long as its account's calls do before ctx's deadline, by what
// the queue learned of them (runtimes.go: lower bounds on its start and
// its run, so that a wrong guess queues); one whose deadline passes while
// it waits is refused then. All answer -32005 and never run. A Keys
// without a share bounds nothing.
func (a *Keys) Turn(ctx context.Context, key *keys.Key, remote string) (release func(), refused *jsonrpc.Error) {
	if a.exec == nil {
		return nothing, nil
	}
	account := Account(key, remote)
	deadline, _ := ctx.Deadline()
	c, full, late := a.exec.take(account, deadline)
	switch {
	case full:
		return nil, ErrExecutionQueueFull(a.executionShare)
	case late != nil:
		return nil, ErrExecutionWouldNotStart(late.run, late.running, late.ahead, callTimeoutOf(key))
	case c.ready == nil:
		return a.releaseOf(account, c), nil
	}
	select {
	case <-c.ready:
		return a.releaseOf(account, c), nil
	case <-ctx.Done():
		a.exec.abandon(account, c)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ErrExecutionNotStarted(callTimeoutOf(key))
		}
		return nil, jsonrpc.ErrInternal("request cancelled")
	}
}

// releaseOf is the release of c's slot, a call of account, which does
// something the first time only.
func (a *Keys) releaseOf(account string, c *execCall) func() {
	var done bool
	return func() {
		if !done {
			done = true
			a.exec.release(account, c)
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

// ErrExecutionWouldNotStart answers a call that runs code, when it asks
// for an execution slot, when it could not start in time to run as long
// as its account's calls do (run, a lower bound: runtimes.go) within its
// plan's call_timeout: running of the account's calls run and ahead wait
// before it. It did not run.
func ErrExecutionWouldNotStart(run time.Duration, running, ahead int, callTimeout string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"this account's calls that run code hold its execution slots for at least %s each (%d run, %d wait before this one): this call would not start in time to run that long within its call_timeout (%s), so it did not run; wait for answers before sending more",
		runText(run), running, ahead, callTimeout))
}

// runText is a run time as a message says it: to the millisecond (to the
// microsecond under one).
func runText(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// ErrExecutionNotStarted answers a call that runs code when no execution
// slot came free for it within its plan's call_timeout: it did not run.
func ErrExecutionNotStarted(callTimeout string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"the node's execution slots were busy for this call's whole call_timeout (%s): it did not run; try again", callTimeout))
}
