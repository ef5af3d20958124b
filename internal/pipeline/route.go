package pipeline

import (
	"context"
	"log/slog"
	"sync"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// bufPool recycles request buffers for upstream calls.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// route sends the call to the network's pool and returns its answer as raw
// bytes; when the pool cannot answer, an eligible call of a plan that
// allows it goes to a partner. A call of a client batch first waits for the
// batch's other calls and goes with them as an upstream batch (collect.go);
// what that batch did not answer is sent alone, here.
func route(ctx context.Context, c *Call) *jsonrpc.Response {
	var failed *upstream.Member
	if t, _ := ctx.Value(tokenKey{}).(*token); t != nil {
		var resp *jsonrpc.Response
		if resp, failed = t.collect(c); resp != nil {
			return resp
		}
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	body := jsonrpc.AppendRequest((*bp)[:0], 1, c.Req.Method, c.Req.Params)
	*bp = body
	n := c.Network
	var (
		resp *jsonrpc.Response
		err  error
	)
	if failed != nil {
		resp, _, err = n.pool().ForwardAfterBatch(ctx, body, c.Rule.Idempotent, failed)
	} else {
		resp, err = n.pool().Forward(ctx, body, c.Rule.Idempotent)
	}
	if err == nil {
		return resp
	}
	if upstream.Expired(ctx) {
		return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("request cancelled"))
	}
	if resp := failover(ctx, c, body); resp != nil {
		return resp
	}
	slog.Warn("upstream unavailable", "network", n.Name, "method", c.Req.Method, "err", err)
	if n.Metrics != nil {
		n.Metrics.Unavailable.WithLabelValues(n.Name, c.Req.Method).Inc()
	}
	return jsonrpc.ErrorResponse(jsonrpc.ErrUpstreamUnavailable())
}
