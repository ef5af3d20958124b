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
	// Observer, when set, wraps the chain and each stage (observe.go).
	Observer Observer
}

// Build compiles the stages once, in the order of stages.go.
func Build(opts Options) *Pipeline {
	h := Handler(route)
	if opts.Observer != nil {
		h = opts.Observer.WrapStage("route", h)
	}
	stages := order()
	for i := len(stages) - 1; i >= 0; i-- {
		h = stages[i](h)
		if opts.Observer != nil {
			h = opts.Observer.WrapStage(stageName(stages[i]), h)
		}
	}
	if opts.Observer != nil {
		h = opts.Observer.WrapCall(h)
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

// BatchParallelism is how many calls of one batch run at once at most.
func (p *Pipeline) BatchParallelism() int { return p.batchParallelism }
