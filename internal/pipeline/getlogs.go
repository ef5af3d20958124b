package pipeline

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/plan"
	"github.com/nodegate/nodegate/jsonrpc"
)

// getLogsLimits enforces eth_getLogs's limits at the gateway (see package
// limits; nil: docs/spec.md's). The log queries it makes go down the rest
// of the pipeline, one copy of the call per sub-range (Call.Sub); the tag
// resolutions are the network's own reads (Network.Read).
type getLogsLimits struct{ limits *limits.Set }

func (getLogsLimits) Name() string { return "getLogsLimits" }

func (g getLogsLimits) withLimits(set *limits.Set) Stage { return getLogsLimits{set} }

func (g getLogsLimits) Wrap(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule == nil || c.Rule.Limit != methods.LimitGetLogs || len(c.Parsed) == 0 {
			return next(ctx, c)
		}
		crit, _ := c.Parsed[0].(*filters.FilterCriteria)
		b := limits.Backend{
			Logs: func(ctx context.Context, params json.RawMessage, span *limits.Span) *jsonrpc.Response {
				if span == nil {
					return next(ctx, c)
				}
				sub := c.Sub(params)
				sub.Parsed = methods.Parsed{subFilter(crit, span)}
				return next(ctx, sub)
			},
			Call: c.Network.Read,
		}
		return limits.GetLogs(ctx, g.limits.For(planLimits(c)), limits.Query{Params: c.Req.Params, Filter: crit}, b)
	}
}

// subFilter is the decoded filter of a sub-range, for stages that look inside.
func subFilter(crit *filters.FilterCriteria, span *limits.Span) *filters.FilterCriteria {
	f := filters.FilterCriteria{}
	if crit != nil {
		f = *crit
	}
	f.BlockHash = nil
	f.FromBlock = new(big.Int).SetUint64(span.From)
	f.ToBlock = new(big.Int).SetUint64(span.To)
	return &f
}

// planLimits are the method limits the call's key's plan sets itself
// (none without a key): the network's limits fill the rest (limits.Set.For).
func planLimits(c *Call) plan.MethodLimits {
	if c.Key == nil {
		return plan.MethodLimits{}
	}
	return c.Key.Plan.MethodLimits
}
