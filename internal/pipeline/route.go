package pipeline

import (
	"context"
	"log/slog"
	"sync"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/cache"
	"github.com/nodegate/nodegate/internal/coalesce"
	"github.com/nodegate/nodegate/internal/deadline"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// bufPool recycles request buffers for upstream calls.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Route is the last stage: how a network's calls reach its nodes, and
// what it holds for that besides the nodes themselves (Network.Pool,
// Network.Partners).
type Route struct {
	// Cache keeps answers that can no longer change (nil: no cache).
	Cache *cache.Cache
	// FailoverMethods are the methods eligible for partner failover.
	FailoverMethods map[string]bool
	// Metrics, when set, records failovers and unavailability.
	Metrics *telemetry.Registry

	// coalesce shares identical reads in flight at once.
	coalesce coalesce.Group
}

// Name implements Stage.
func (*Route) Name() string { return "route" }

// Wrap implements Stage: the route is the end of the chain, next is never
// called.
func (r *Route) Wrap(Handler) Handler { return r.serve }

// serve answers from the network's cache of final answers when it can
// (package cache); else it sends the call to the network's pool and returns its answer as raw
// bytes; when the pool cannot answer, an eligible call of a plan that
// allows it goes to a partner. A call of a client batch first waits for the
// batch's other calls and goes with them as an upstream batch (collect.go);
// what that batch did not answer is sent alone, here.
func (r *Route) serve(ctx context.Context, c *Call) *jsonrpc.Response {
	n := c.Network
	if !r.Cache.Caches(c.Req.Method) {
		return r.forward(ctx, c)
	}
	finalized := n.pool().Finalized()
	if !cache.Before(c.Rule, c.Req.Params, finalized) {
		return r.forward(ctx, c)
	}
	chain := n.pool().Chain()
	if chain == "" {
		return r.forward(ctx, c) // which chain answers is not known: nothing is kept about it
	}
	var kb [256]byte
	key := cache.Key(kb[:0], chain, c.Req.Method, c.Req.Params)
	pool := n.pool()
	if v, ok := r.Cache.Get(ctx, key, pool); ok {
		return &jsonrpc.Response{Result: v}
	}
	resp := r.forward(ctx, c)
	// Admit first: it is cheaper than reading the answer, and most keys
	// are fetched once.
	if c.ForwardedTo() == "" && r.Cache.Admit(key) && cache.After(c.Rule, resp, finalized) {
		// Final only as the member that answered has it: final there, and
		// its block the canonical one (upstream.Pool.Final).
		if b, ok := cache.BlockOf(c.Rule, c.Req.Params, resp); ok {
			if h, final := pool.Final(c.Member(), b.Number, b.Hash); final {
				r.Cache.Set(ctx, key, cache.Block{Number: b.Number, Hash: h}, resp.Result)
			}
		}
	}
	return resp
}

// forward sends the call upstream: with its batch, shared with identical
// reads in flight, or alone. The member that answered goes in the call's
// record.
func (r *Route) forward(ctx context.Context, c *Call) *jsonrpc.Response {
	var failed *upstream.Member
	t := c.record().batch
	if t != nil {
		var (
			resp   *jsonrpc.Response
			member string
		)
		if resp, member, failed = t.collect(c); resp != nil {
			c.answered(member, false)
			return resp
		}
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	body := jsonrpc.AppendRequest((*bp)[:0], 1, c.Req.Method, c.Req.Params)
	*bp = body
	n := c.Network
	var (
		resp   *jsonrpc.Response
		member string
		err    error
	)
	call := upstream.Call{Body: body, Rule: c.Rule, Params: c.Req.Params, Idempotent: c.Rule.Idempotent}
	if c.Rule.Write || !c.Rule.Idempotent {
		// The embedded nodes count a write's cost for the caller's
		// account (admission.AccountOf): the EVM node a transaction's
		// bytes, the Starknet devnet its hashing. Only a call that may
		// change a node (a write, a method that is not idempotent)
		// carries the call, so no read pays for it. (Such calls are
		// never in an upstream batch, collect.go's batchable.)
		ctx = admission.WithCaller(ctx, c)
	}
	switch {
	case failed != nil:
		resp, member, err = n.pool().Send(ctx, call, upstream.Avoid(failed))
	case coalescable(ctx, c, t):
		var kb [256]byte
		pool := n.pool()
		key := coalesce.Key(kb[:0], c.Req.Method, c.Req.Params, pool.BestHead(), pool.Epoch())
		resp, member, err = r.coalesce.Do(key, func() (*jsonrpc.Response, string, error) {
			// The answer is shared: no caller's cancellation may cut it.
			return pool.Send(context.WithoutCancel(ctx), call)
		})
	default:
		resp, member, err = n.pool().Send(ctx, call)
	}
	if err == nil {
		c.answered(member, false)
		return resp
	}
	if deadline.Expired(ctx) {
		return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("request cancelled"))
	}
	if resp := r.failover(ctx, c, body); resp != nil {
		return resp
	}
	slog.Warn("upstream unavailable", "network", n.Name, "method", methods.Label(c.Req.Method), "err", err)
	if r.Metrics != nil {
		r.Metrics.Unavailable.WithLabelValues(n.Name, methods.Label(c.Req.Method)).Inc()
	}
	return jsonrpc.ErrorResponse(jsonrpc.ErrUpstreamUnavailable())
}

// coalescable: identical reads in flight at once share one upstream call
// (package coalesce) — single calls only (a batch's calls go upstream
// together instead), and only on a context without a deadline of its own
// (an eth_getLogs time limit belongs to its caller, not to the shared call).
// Failover stays per caller: it depends on the caller's plan.
func coalescable(ctx context.Context, c *Call, t *token) bool {
	if t != nil || c.Rule == nil || !c.Rule.Idempotent {
		return false
	}
	_, deadline := ctx.Deadline()
	return !deadline
}
