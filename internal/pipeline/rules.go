package pipeline

import (
	"context"

	"github.com/nodegate/nodegate/jsonrpc"
)

// checkRules resolves the call's rule on its network and checks its params
// before any node sees them; absent params with a default are filled in
// (methods.Rule.WithDefaults).
func checkRules(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		rule, err := c.Network.Methods.Lookup(c.Req.Method)
		if err != nil {
			return jsonrpc.ErrorResponse(err)
		}
		c.Rule = rule
		parsed, err := rule.Check(c.Req.Params)
		if err != nil {
			return jsonrpc.ErrorResponse(err)
		}
		c.Parsed = parsed
		if params, changed := rule.WithDefaults(c.Req.Params, parsed); changed {
			c.Req.Params = params // the defaults docs/spec.md promises, whatever the node's
		}
		return next(ctx, c)
	}
}
