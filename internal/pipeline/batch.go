package pipeline

import (
	"context"
	"sync"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// BatchLimits bound what one request's calls may take.
type BatchLimits struct {
	// MaxAnswerBytes is the request's answer budget, counted as go-ethereum
	// counts a batch's answers (jsonrpc.Response.Size). Once the answers
	// handed out, in the calls' order, pass it, every later call answers
	// -32003 response too large; an answer larger than the whole budget is
	// itself replaced by -32003. 0 means no budget.
	MaxAnswerBytes int64
	// Parallelism lowers the pipeline's batch parallelism for this request
	// (the calls its key may have in flight); 0 keeps the pipeline's.
	Parallelism int
}

// Emit receives the answer of calls[i]. ServeBatch calls it in the calls'
// order, one call at a time, as soon as that answer and every one before
// it are known; the answer is the caller's to write out and forget. An
// error (the client is gone) stops the batch: no call is started after
// it, the calls in flight are cancelled, and nothing more is emitted.
type Emit func(i int, r *jsonrpc.Response) error

// initialWindow is how many calls of a budgeted batch run before any of
// their answers' sizes is known: a batch of calls that each answer
// megabytes must not start sixteen of them at once. Calls whose answers
// the gateway does not know to be large (methods.LargeAnswer) are not
// counted: they start at once, up to the parallelism.
const initialWindow = 2

// ServeBatch answers calls, concurrently, and hands each answer to emit in
// the calls' order. A call is started only while the calls started and
// not yet emitted fit the window: with a budget it begins at
// initialWindow, doubles with each answer that finishes, and never exceeds
// what the budget still left holds at the size of the largest answer seen
// so far (at least one call, at most the parallelism). So a batch holds
// only a few answers in memory, never all of them.
func (p *Pipeline) ServeBatch(ctx context.Context, calls []*Call, lim BatchLimits, emit Emit) {
	if len(calls) == 0 {
		return
	}
	switch len(calls) {
	case 1:
		r := p.handler(ctx, calls[0])
		if lim.MaxAnswerBytes > 0 && r.Size() > lim.MaxAnswerBytes {
			r = jsonrpc.ErrorResponse(jsonrpc.ErrResponseTooLarge())
		}
		_ = emit(0, r)
		return
	}
	parallelism := p.batchParallelism
	if lim.Parallelism > 0 {
		parallelism = min(parallelism, lim.Parallelism)
	}
	b := &batchRun{p: p, calls: calls, lim: lim, emit: emit, parallelism: parallelism,
		results: make(chan finished, len(calls)), held: make([]*jsonrpc.Response, len(calls))}
	b.window = parallelism
	if lim.MaxAnswerBytes > 0 {
		b.window = min(parallelism, initialWindow)
	}
	b.col = newCollector(ctx)
	ctx, b.cancel = context.WithCancel(ctx)
	b.run(ctx)
}

// finished is one call's answer, as a worker hands it back.
type finished struct {
	i int
	r *jsonrpc.Response
}

// batchRun is the state of one ServeBatch over several calls. Only the
// goroutine in run touches it; workers only send on results.
type batchRun struct {
	p           *Pipeline
	calls       []*Call
	lim         BatchLimits
	emit        Emit
	parallelism int

	col     *collector    // the batch's calls meet at the route (collect.go)
	results chan finished // buffered for every call: a worker never blocks
	// cancel cancels the calls in flight when the batch stops: one
	// context for the batch's calls, not one each (a context per call cost
	// each call four allocations and its parent's map of children).
	cancel context.CancelFunc
	held   []*jsonrpc.Response // finished answers waiting for those before them
	wg     sync.WaitGroup

	started, emitted, window int
	large                    int   // started, not emitted, and methods.LargeAnswer
	used, largest            int64 // bytes emitted; largest answer finished
	spent                    bool  // the budget is passed: later calls answer -32003
}

func (b *batchRun) run(ctx context.Context) {
	defer b.wg.Wait()
	defer b.cancel()
	n := len(b.calls)
	for b.emitted < n {
		if b.spent {
			b.cancel() // the calls in flight: every later answer is -32003
			tooLarge := jsonrpc.ErrorResponse(jsonrpc.ErrResponseTooLarge())
			for ; b.emitted < n; b.emitted++ {
				if b.emit(b.emitted, tooLarge) != nil {
					return
				}
			}
			return
		}
		for b.started < n && b.mayStart(b.started) {
			b.start(ctx, b.started)
			b.started++
		}
		b.col.wait()
		f := <-b.results
		b.held[f.i] = f.r
		b.largest = max(b.largest, f.r.Size())
		if !b.emitReady() {
			return
		}
		b.resize()
	}
}

// mayStart reports whether call i fits the window: at most parallelism
// calls started and not emitted, of which at most window are calls whose
// answers' size the protocol does not bound.
func (b *batchRun) mayStart(i int) bool {
	if b.started-b.emitted >= b.parallelism {
		return false
	}
	return !methods.LargeAnswer(b.calls[i].Req.Method) || b.large < b.window
}

func (b *batchRun) start(ctx context.Context, i int) {
	if methods.LargeAnswer(b.calls[i].Req.Method) {
		b.large++
	}
	t := b.col.start()
	b.calls[i].record().batch = t // the route finds the call's batch in its record (Route.forward)
	b.wg.Add(1)
	batchWorkers.Go(func() {
		defer b.wg.Done()
		r := b.p.handler(ctx, b.calls[i])
		t.release() // the call has left the pipeline
		b.results <- finished{i, r}
	})
}

// emitReady hands out every answer that has all those before it; false
// means emit failed and the batch stops.
func (b *batchRun) emitReady() bool {
	max := b.lim.MaxAnswerBytes
	for b.emitted < len(b.calls) && !b.spent && b.held[b.emitted] != nil {
		r := b.held[b.emitted]
		b.held[b.emitted] = nil
		size := r.Size()
		if max > 0 && size > max {
			r = jsonrpc.ErrorResponse(jsonrpc.ErrResponseTooLarge())
		}
		if b.emit(b.emitted, r) != nil {
			return false
		}
		if methods.LargeAnswer(b.calls[b.emitted].Req.Method) {
			b.large--
		}
		b.emitted++
		b.used += size
		b.spent = max > 0 && b.used > max
	}
	return true
}

// resize sets the window for the next starts (see ServeBatch).
func (b *batchRun) resize() {
	if b.lim.MaxAnswerBytes <= 0 {
		return
	}
	fit := (b.lim.MaxAnswerBytes - b.used) / max(b.largest, 1)
	target := int(min(max(fit, 1), int64(b.parallelism)))
	b.window = min(target, 2*b.window)
}
