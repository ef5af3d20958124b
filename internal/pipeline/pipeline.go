package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Pipeline runs calls through their network's stages. It compiles each
// network's chain once, on the network's first call.
type Pipeline struct {
	handler  Handler  // each call's network chain
	observer Observer // nil: none
	chains   sync.Map // *Network → Handler
	// BatchParallelism bounds how many calls of one batch run at once.
	batchParallelism int
}

// Options tune a pipeline.
type Options struct {
	BatchParallelism int // default 16
	// Observer, when set, wraps each network's chain and each of its
	// stages (observe.go).
	Observer Observer
}

// Build makes a pipeline; each network's chain is compiled on first use,
// in the order of stages.go.
func Build(opts Options) *Pipeline {
	if opts.BatchParallelism <= 0 {
		opts.BatchParallelism = 16
	}
	p := &Pipeline{observer: opts.Observer, batchParallelism: opts.BatchParallelism}
	p.handler = func(ctx context.Context, c *Call) *jsonrpc.Response {
		r := c.record() // before any stage copies the call or starts a goroutine
		start := time.Now()
		resp := p.chain(c.Network)(ctx, c)
		r.took.Store(int64(time.Since(start)))
		return resp
	}
	return p
}

// chain is n's compiled chain.
func (p *Pipeline) chain(n *Network) Handler {
	if h, ok := p.chains.Load(n); ok {
		return h.(Handler)
	}
	h, _ := p.chains.LoadOrStore(n, p.compile(n))
	return h.(Handler)
}

// compile builds n's chain: its stages in order (stages.go), each wrapped
// by the observer, and the whole once more.
func (p *Pipeline) compile(n *Network) Handler {
	var route Stage = &Route{} // a call without a network: the rules refuse it
	if n != nil {
		route = n.route()
		n.readThrough(p.observer)
	}
	stages := order(n.familyStages(), route)
	var h Handler
	for i := len(stages) - 1; i >= 0; i-- {
		h = stages[i].Wrap(h)
		if p.observer != nil {
			h = p.observer.WrapStage(stages[i].Name(), h)
		}
	}
	if p.observer != nil {
		h = p.observer.WrapCall(h)
	}
	return h
}

// Serve answers one call.
func (p *Pipeline) Serve(ctx context.Context, c *Call) *jsonrpc.Response {
	return p.handler(ctx, c)
}

// BatchParallelism is how many calls of one batch run at once at most.
func (p *Pipeline) BatchParallelism() int { return p.batchParallelism }
