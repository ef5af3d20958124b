package pipeline

import (
	"context"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// pendingTransactions answers the Starknet pending-transactions methods
// (rollup_pendingTransactions, starknet_pendingTransactions) from the
// network's pending-pool reader, chosen by the call's method as the method
// rules resolved it (params were checked there: none). Every other call
// goes on to the route untouched. A node that cannot be reached answers
// -32603 upstream unavailable (starknet.Pending.Serve).
type pendingTransactions struct{ pending *starknet.Pending }

func (pendingTransactions) Name() string { return "pendingTransactions" }

func (p pendingTransactions) Wrap(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule == nil || !starknet.IsPendingMethod(c.Req.Method) {
			return next(ctx, c)
		}
		res, err := p.pending.Serve(ctx, c.Req.Method, c.Req.Params)
		if err != nil {
			return jsonrpc.ErrorResponse(err)
		}
		return &jsonrpc.Response{Result: res}
	}
}
