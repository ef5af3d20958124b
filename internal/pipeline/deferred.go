package pipeline

import (
	"context"

	"github.com/nodegate/nodegate/jsonrpc"
)

// nodeErrorFirst answers a param the method rules found malformed but that
// go-ethereum only checks after resolving the call's block (a storage key
// of eth_getStorageAt, see methods.Deferred): the node is asked the same
// call with a valid value in its place, so that an unknown block is
// answered with the node's own error, as go-ethereum would; a block the
// node resolves gets the param's refusal. The malformed value never
// reaches a node.
func nodeErrorFirst(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		d := c.Parsed.Deferred()
		if d == nil {
			return next(ctx, c)
		}
		params, ok := replaceParam(c.Req.Params, d.Index, d.Placeholder)
		if !ok { // not reachable: the rules decoded the param at that index
			return jsonrpc.ErrorResponse(d.Err)
		}
		probe := c.Sub(params)
		probe.Parsed = nil
		if resp := next(ctx, probe); resp.Err != nil {
			return resp
		}
		return jsonrpc.ErrorResponse(d.Err)
	}
}

// replaceParam returns params with element i replaced by v; every other
// byte is kept.
func replaceParam(params []byte, i int, v []byte) ([]byte, bool) {
	var elem []byte
	n := 0
	_ = jsonrpc.Elements(params, func(e []byte) bool {
		if n == i {
			elem = e
			return false
		}
		n++
		return true
	})
	if elem == nil {
		return nil, false
	}
	at := cap(params) - cap(elem) // elem is a sub-slice of params
	out := make([]byte, 0, len(params)-len(elem)+len(v))
	out = append(append(append(out, params[:at]...), v...), params[at+len(elem):]...)
	return out, true
}
