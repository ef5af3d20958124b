package pipeline

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Read sends one read nodegate makes for itself (the block number of a
// tag, for the limits of eth_getLogs) to the network's nodes and returns
// the answer. It is no client's call: it has no key, passes no policy,
// never waits for a client batch and never fails over to a partner (a
// plan's failover is for its own calls). It runs through the internalRead
// stage, which the pipeline's observer sees as any stage (a span of its
// own, the parent of the upstream attempts), and the network's route.
func (n *Network) Read(ctx context.Context, method string, params json.RawMessage) *jsonrpc.Response {
	c := &Call{Req: jsonrpc.Request{Method: method, Params: params}, Network: n}
	return n.readChain().handler(n)(ctx, c)
}

// internalRead is the stage of the network's own reads (Read): it gives
// them their rule.
var internalRead Stage = stageFunc{"internalRead", readCalls}

// readRule is the rule of the reads nodegate makes for itself:
// idempotent, so the pool may retry them.
var readRule = &methods.Rule{Name: "internal read", Idempotent: true}

func readCalls(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		c.Rule = readRule
		return next(ctx, c)
	}
}

// reads is the chain of a network's own reads: internalRead, then the
// route, wrapped by the observer of the pipeline that serves the network;
// compiled on the first read.
type reads struct {
	observer Observer // nil: none
	once     sync.Once
	h        Handler
}

func (r *reads) handler(n *Network) Handler {
	r.once.Do(func() {
		h := internalRead.Wrap(n.route().Wrap(nil))
		if r.observer != nil {
			h = r.observer.WrapStage(internalRead.Name(), h)
		}
		r.h = h
	})
	return r.h
}

// readThrough makes o the observer of n's reads: the pipeline that
// compiles n's chain calls it (Pipeline.compile), so that the reads of its
// stages are observed as they are.
func (n *Network) readThrough(o Observer) {
	n.reads.Store(&reads{observer: o})
}

// readChain is n's chain of reads; without a pipeline serving n yet, one
// without an observer.
func (n *Network) readChain() *reads {
	if r := n.reads.Load(); r != nil {
		return r
	}
	n.reads.CompareAndSwap(nil, &reads{})
	return n.reads.Load()
}
