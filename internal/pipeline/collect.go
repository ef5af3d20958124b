package pipeline

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// A collector gathers the calls of one client batch at the route stage, so
// that the forwardable ones go upstream as upstream batches. The calls run
// through the stages as usual; a call that reaches the route waits there
// until every call of the batch that is running has either reached the
// route too or left the pipeline elsewhere (refused, answered by a
// session, …), and the batch's runner (batch.go) starts no more calls
// until one finishes (every call is started, or its window is full); then
// the waiting calls are sent at once.
//
// The runner owns the collector: it gives each call it starts a token
// (start, carried to the route in the call's record: record.batch) and says when it
// starts nothing more until a call finishes (wait). A token says where its
// call is: running (could still reach the route), waiting (at the route),
// or released (sent, finished, or not batchable: it will not wait).
type collector struct {
	ctx context.Context // the batch's context, for the upstream batches
	// forward sends one network's upstream batch: its pool's ForwardBatch
	// (a test records what is sent instead).
	forward func(ctx context.Context, n *Network, calls []upstream.BatchCall) []upstream.BatchAnswer
	// backstopAfter is flushAfter (a test waits longer or shorter).
	backstopAfter time.Duration

	mu      sync.Mutex
	running int // tokens running: calls that could still reach the route
	waiting []*waiter
	timer   *time.Timer
	// idle: the runner waits for a call to finish before it starts more.
	idle bool
}

// flushAfter is the backstop: waiting calls are sent after this long even
// if a call that will not reach the route (a long eth_getLogs) is still
// running.
const flushAfter = 50 * time.Millisecond

type tokenState uint8

const (
	tokenRunning tokenState = iota
	tokenWaiting
	tokenReleased
)

// token is one call's place in its batch's collector.
type token struct {
	col   *collector
	state tokenState
}

// waiter is a call waiting at the route for its upstream batch.
type waiter struct {
	c    *Call
	done chan struct{}
	ans  upstream.BatchAnswer
}

// newCollector is made by ServeBatch for one batch; ctx is the batch's.
func newCollector(ctx context.Context) *collector {
	return &collector{ctx: ctx, forward: poolBatch, backstopAfter: flushAfter}
}

// poolBatch sends calls to n's pool as upstream batches.
func poolBatch(ctx context.Context, n *Network, calls []upstream.BatchCall) []upstream.BatchAnswer {
	return n.pool().ForwardBatch(ctx, calls)
}

// start counts a call the runner is about to start and returns its token;
// it is called before the call's goroutine exists, so a call at the route
// never takes the batch for complete while another is being started.
func (col *collector) start() *token {
	t := &token{col: col}
	col.update(func() {
		col.running++
		col.idle = false
	})
	return t
}

// wait tells the collector that the runner starts nothing more until a
// call finishes: the calls waiting at the route may go.
func (col *collector) wait() {
	col.update(func() { col.idle = true })
}

// release marks a call that will not wait at the route (any more): it is
// not batchable, or it has left the pipeline.
func (t *token) release() {
	col := t.col
	col.update(func() {
		if t.state == tokenRunning {
			col.running--
		}
		t.state = tokenReleased
	})
}

// update changes the collector's state under its lock and, when the
// waiting calls are then to go, sends them: the one way calls are sent
// besides the backstop.
func (col *collector) update(change func()) {
	col.mu.Lock()
	change()
	flush := col.ready()
	col.mu.Unlock()
	if flush != nil {
		// On a kept worker (workers.go): a fresh goroutine would grow its
		// stack by copying, down to the transport, on every batch.
		batchWorkers.Go(func() { col.send(flush) })
	}
}

// ready returns the waiting calls when they are to be sent now (with mu
// held): none is running any more and the runner starts no more until one
// finishes (it has started every call, or its window is full).
func (col *collector) ready() []*waiter {
	if len(col.waiting) == 0 || col.running > 0 || !col.idle {
		return nil
	}
	w := col.waiting
	col.waiting = nil
	if col.timer != nil {
		col.timer.Stop()
		col.timer = nil
	}
	return w
}

// batchable: idempotent calls with no deadline of their own. Writes keep
// their single-call rules; eth_getLogs under the gateway's limits has its
// own time limit and sub-ranges.
func batchable(c *Call) bool {
	return c.Rule != nil && c.Rule.Idempotent && c.Rule.Limit != methods.LimitGetLogs &&
		c.Network.pool().Batches()
}

// collect makes c wait for its upstream batch and returns the answer and
// the member that gave it. It returns a nil answer when the batch did not
// answer c (or c is not batchable): the caller sends it alone, avoiding the
// member that failed it.
func (t *token) collect(c *Call) (resp *jsonrpc.Response, member string, failed *upstream.Member) {
	if !batchable(c) {
		t.release()
		return nil, "", nil
	}
	col := t.col
	w := &waiter{c: c, done: make(chan struct{})}
	queued := false
	col.update(func() {
		if t.state != tokenRunning {
			// The runner released the call already: a copy its caller
			// stopped waiting for (executionLimits.run) arrives late.
			return
		}
		t.state, queued = tokenWaiting, true
		col.running--
		col.waiting = append(col.waiting, w)
		if col.timer == nil {
			col.timer = time.AfterFunc(col.backstopAfter, col.backstop)
		}
	})
	if !queued {
		return nil, "", nil
	}
	<-w.done
	col.mu.Lock()
	t.state = tokenReleased
	col.mu.Unlock()
	if w.ans.Resp != nil {
		return w.ans.Resp, w.ans.Member, nil
	}
	return nil, "", w.ans.Failed
}

func (col *collector) backstop() {
	col.mu.Lock()
	col.timer = nil
	w := col.waiting
	col.waiting = nil
	col.mu.Unlock()
	if len(w) > 0 {
		col.send(w)
	}
}

// send forwards the waiting calls, per network, as upstream batches and
// wakes them with their answers.
func (col *collector) send(ws []*waiter) {
	defer func() {
		if r := recover(); r != nil {
			// A bug below: the calls go alone, each under its own recover.
			slog.Error("panic while sending an upstream batch", "panic", r, "stack", string(debug.Stack()))
			for _, w := range ws {
				w.ans = upstream.BatchAnswer{}
			}
		}
		for _, w := range ws {
			close(w.done)
		}
	}()
	if len(ws) == 1 {
		return // alone: the call goes its single way
	}
	for start := 0; start < len(ws); {
		n := ws[start].c.Network
		group := ws[start:start]
		for _, w := range ws[start:] {
			if w.c.Network != n {
				break
			}
			group = append(group, w)
		}
		start += len(group)
		if len(group) == 1 {
			continue
		}
		calls := make([]upstream.BatchCall, len(group))
		for i, w := range group {
			calls[i] = upstream.BatchCall{Method: w.c.Req.Method, Rule: w.c.Rule, Params: w.c.Req.Params}
		}
		for i, a := range col.forward(col.ctx, n, calls) {
			group[i].ans = a
		}
	}
}
