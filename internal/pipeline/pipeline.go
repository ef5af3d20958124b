package pipeline

import (
	"context"

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
	if opts.BatchParallelism <= 0 {
		opts.BatchParallelism = 16
	}
	return &Pipeline{handler: h, batchParallelism: opts.BatchParallelism}
}

// Serve answers one call.
func (p *Pipeline) Serve(ctx context.Context, c *Call) *jsonrpc.Response {
	return p.handler(ctx, c)
}

// BatchParallelism is how many calls of one batch run at once at most.
func (p *Pipeline) BatchParallelism() int { return p.batchParallelism }
