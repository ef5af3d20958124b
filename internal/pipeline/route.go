package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// bufPool recycles request buffers for upstream calls.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// route sends the call to the network's upstream and returns its answer as
// raw bytes.
func route(ctx context.Context, c *Call) *jsonrpc.Response {
	bp := bufPool.Get().(*[]byte)
	body := jsonrpc.AppendRequest((*bp)[:0], 1, c.Req.Method, c.Req.Params)
	out, err := c.Network.Upstream.Do(ctx, body)
	*bp = body
	bufPool.Put(bp)
	if err != nil {
		return upstreamFailure(ctx, c, err)
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		slog.Warn("upstream answered something that is not JSON-RPC", "network", c.Network.Name, "upstream", c.Network.Upstream.Name(), "method", c.Req.Method)
		return jsonrpc.ErrorResponse(jsonrpc.ErrUpstreamUnavailable())
	}
	return &resp
}

func upstreamFailure(ctx context.Context, c *Call, err error) *jsonrpc.Response {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("request cancelled"))
	}
	slog.Warn("upstream failed", "network", c.Network.Name, "method", c.Req.Method, "err", err, "node_fault", upstream.IsNodeFault(err))
	return jsonrpc.ErrorResponse(jsonrpc.ErrUpstreamUnavailable())
}
