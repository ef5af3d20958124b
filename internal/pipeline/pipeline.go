package pipeline

import (
	"context"
	"sync"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Pipeline is the compiled chain of stages.
type Pipeline struct {
	handler Handler
	// BatchParallelism bounds how many calls of one batch run at once.
	batchParallelism int
}

// Options tune a pipeline.
type Options struct {
	BatchParallelism int // default 16
}

// Build compiles the stages once, in the order of stages.go.
func Build(opts Options) *Pipeline {
	h := Handler(route)
	stages := order()
	for i := len(stages) - 1; i >= 0; i-- {
		h = stages[i](h)
	}
	h = batchStage(h) // a batch's calls meet at the route (collect.go)
	if opts.BatchParallelism <= 0 {
		opts.BatchParallelism = 16
	}
	return &Pipeline{handler: h, batchParallelism: opts.BatchParallelism}
}

// Serve answers one call.
func (p *Pipeline) Serve(ctx context.Context, c *Call) *jsonrpc.Response {
	return p.handler(ctx, c)
}

// ServeBatch answers every call of a batch, concurrently, and returns the
// answers in the calls' order.
func (p *Pipeline) ServeBatch(ctx context.Context, calls []*Call) []*jsonrpc.Response {
	out := make([]*jsonrpc.Response, len(calls))
	if len(calls) == 1 {
		out[0] = p.handler(ctx, calls[0])
		return out
	}
	workers := min(p.batchParallelism, len(calls))
	ctx = withCollector(ctx, len(calls), workers)
	var (
		wg   sync.WaitGroup
		next = make(chan int, len(calls))
	)
	for i := range calls {
		next <- i
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for i := range next {
				out[i] = p.handler(ctx, calls[i])
			}
		})
	}
	wg.Wait()
	return out
}
