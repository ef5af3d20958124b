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
// Each call of the batch carries a token (batchStage) that tells the
// collector where it is: running (could still reach the route), waiting
// (at the route), or released (sent, or not batchable: it will not wait).
type collector struct {
	ctx   context.Context // the batch's context, for the upstream batches
	total int             // calls in the batch

	mu       sync.Mutex
	started  int
	finished int
	running  int
	waiting  []*waiter
	timer    *time.Timer
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

type collectorKey struct{}
type tokenKey struct{}

// newCollector is made by ServeBatch for a batch of total calls; the
// context it returns carries it to the calls, so that the calls that reach
// the route together go upstream together.
func newCollector(ctx context.Context, total int) (context.Context, *collector) {
	col := &collector{ctx: ctx, total: total}
	return context.WithValue(ctx, collectorKey{}, col), col
}

// batchStage is the outermost stage: on a batch's context it gives each
// call its token and tells the collector when the call is done.
func batchStage(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		col, _ := ctx.Value(collectorKey{}).(*collector)
		if col == nil {
			return next(ctx, c)
		}
		t := &token{col: col}
		defer col.finish(t)
		return next(context.WithValue(ctx, tokenKey{}, t), c)
	}
}

// launch counts a call the runner is about to start; it is called before
// the call's goroutine exists, so a call at the route never takes the
// batch for complete while another is being started.
func (col *collector) launch() {
	col.mu.Lock()
	col.started++
	col.running++
	col.idle = false
	col.mu.Unlock()
}

// wait tells the collector that the runner starts nothing more until a
// call finishes: the calls waiting at the route may go.
func (col *collector) wait() {
	col.mu.Lock()
	col.idle = true
	flush := col.ready()
	col.mu.Unlock()
	if flush != nil {
		go col.send(flush)
	}
}

func (col *collector) finish(t *token) {
	col.mu.Lock()
	col.finished++
	if t.state == tokenRunning {
		col.running--
	}
	t.state = tokenReleased
	flush := col.ready()
	col.mu.Unlock()
	if flush != nil {
		go col.send(flush)
	}
}

// release marks a running call that will not wait at the route.
func (t *token) release() {
	col := t.col
	col.mu.Lock()
	if t.state != tokenRunning {
		col.mu.Unlock()
		return
	}
	t.state = tokenReleased
	col.running--
	flush := col.ready()
	col.mu.Unlock()
	if flush != nil {
		go col.send(flush)
	}
}

// ready returns the waiting calls when they are to be sent now (with mu
// held): none is running any more, and either every call of the batch has
// started or the runner starts no more until one finishes.
func (col *collector) ready() []*waiter {
	if len(col.waiting) == 0 || col.running > 0 {
		return nil
	}
	if col.started < col.total && !col.idle {
		return nil
	}
	return col.take()
}

func (col *collector) take() []*waiter {
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
	return c.Rule != nil && c.Rule.Idempotent && c.Rule.Limit != methods.LimitGetLogs && c.Rule != internalRead &&
		c.Network.pool().Batches()
}

// collect makes c wait for its upstream batch. It returns nil when the
// batch did not answer c (or c is not batchable): the caller sends it
// alone, avoiding the member that failed it.
func (t *token) collect(c *Call) (*jsonrpc.Response, *upstream.Member) {
	if !batchable(c) {
		t.release()
		return nil, nil
	}
	col := t.col
	col.mu.Lock()
	if t.state != tokenRunning {
		col.mu.Unlock()
		return nil, nil // it already had its turn (a call that routes twice)
	}
	w := &waiter{c: c, done: make(chan struct{})}
	t.state = tokenWaiting
	col.running--
	col.waiting = append(col.waiting, w)
	flush := col.ready()
	if flush == nil && col.timer == nil {
		col.timer = time.AfterFunc(flushAfter, col.backstop)
	}
	col.mu.Unlock()
	if flush != nil {
		col.send(flush)
	}
	<-w.done
	col.mu.Lock()
	t.state = tokenReleased
	col.mu.Unlock()
	if w.ans.Resp != nil {
		return w.ans.Resp, nil
	}
	return nil, w.ans.Failed
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
			calls[i] = upstream.BatchCall{Method: w.c.Req.Method, Params: w.c.Req.Params}
		}
		for i, a := range n.pool().ForwardBatch(col.ctx, calls) {
			group[i].ans = a
		}
	}
}
