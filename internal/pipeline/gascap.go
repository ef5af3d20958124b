package pipeline

import (
	"context"
	"log/slog"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// gasCap lowers the gas of eth_call and eth_estimateGas to the plan's factor
// times the head block's gas limit, as go-ethereum's rpc.gascap does: a gas
// value above the cap is lowered, not refused; an absent one is left to the
// node. Without a head (nil) the node's own cap applies.
type gasCap struct {
	limits *limits.Set
	head   GasLimiter
}

func (gasCap) Name() string { return "gasCap" }

func (g gasCap) withLimits(set *limits.Set) Stage { g.limits = set; return g }

func (g gasCap) Wrap(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule == nil || c.Rule.Limit != methods.LimitGasCap || g.head == nil || len(c.Parsed) == 0 {
			return next(ctx, c)
		}
		args, _ := c.Parsed[0].(*methods.CallArgs)
		if args == nil || args.Gas == nil {
			return next(ctx, c)
		}
		head := g.head.GasLimit()
		if head == 0 {
			return next(ctx, c) // head unknown: the node's own cap applies
		}
		limit := g.limits.For(plan(c)).GasCap(head)
		if uint64(*args.Gas) <= limit {
			return next(ctx, c)
		}
		params, err := limits.CapGas(c.Req.Params, limit)
		if err != nil {
			// Not reachable after the method rules decoded a call object;
			// refusing is safer than sending the gas uncapped.
			slog.Error("gas cap: cannot rewrite params", "method", methods.Label(c.Req.Method), "err", err)
			return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("internal error"))
		}
		capped := *args
		g := hexutil.Uint64(limit)
		capped.Gas = &g
		c.shareOutcome()
		sub := *c
		sub.Req.Params = params
		sub.Parsed = append(methods.Parsed{&capped}, c.Parsed[1:]...)
		return next(ctx, &sub)
	}
}
