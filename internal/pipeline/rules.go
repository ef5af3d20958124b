package pipeline

import (
	"context"

	"github.com/nodegate/nodegate/jsonrpc"
)

// checkRules resolves the call's rule on its network and checks its params
// before any node sees them.
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
		return next(ctx, c)
	}
}
