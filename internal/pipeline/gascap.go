package pipeline

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// gasCap lowers the gas of every method that runs code with a gas a
// client sets (methods.LimitGasCap: eth_call, eth_estimateGas,
// eth_createAccessList, eth_fillTransaction, eth_simulateV1) to the plan's
// factor times the head block's gas limit, as go-ethereum's rpc.gascap
// does: a gas value above the cap is lowered, not refused; so is a block
// override's gasLimit. Where the node would run a call without gas with its
// own cap (methods.GasNodeCap: eth_call), the plan's cap is put in; where
// it estimates the gas within the block's gas limit (methods.GasEstimated),
// an absent gas is left to it. Without a head (nil) the node's own cap
// applies.
type gasCap struct {
	limits *limits.Set
	head   GasLimiter
}

func (gasCap) Name() string { return "gasCap" }

func (g gasCap) withLimits(set *limits.Set) Stage { g.limits = set; return g }

func (g gasCap) Wrap(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule == nil || c.Rule.Limit != methods.LimitGasCap || g.head == nil {
			return next(ctx, c)
		}
		head := g.head.GasLimit()
		if head == 0 {
			return next(ctx, c) // head unknown: the node's own cap applies
		}
		limit := g.limits.For(planLimits(c)).GasCap(head)
		params, changed, err := capParams(c.Rule.Gas, c.Req.Params, limit)
		if err != nil {
			// Not reachable after the ingress checked the JSON; refusing is
			// safer than sending the gas uncapped.
			slog.Error("gas cap: cannot rewrite params", "method", methods.Label(c.Req.Method), "err", err)
			return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("internal error"))
		}
		if !changed {
			return next(ctx, c)
		}
		sub := c.Sub(params)
		if args, ok := firstParsed[methods.CallArgs](c); ok && args != nil {
			if gas, present := limits.CallGas(params); present { // what the node is sent
				capped := *args
				g := hexutil.Uint64(gas)
				capped.Gas = &g
				sub.Parsed = append(methods.Parsed{&capped}, c.Parsed[1:]...)
			}
		}
		return next(ctx, sub)
	}
}

// capParams returns params with the gas capped at limit as kind says, and
// whether anything changed.
func capParams(kind methods.Gas, params json.RawMessage, limit uint64) (json.RawMessage, bool, error) {
	switch kind {
	case methods.GasSimulated:
		return limits.CapSimulateGas(params, limit)
	case methods.GasEstimated, methods.GasNodeCap:
		// The block overrides (eth_call's and eth_estimateGas's fourth
		// param) may raise the block's gas limit, which bounds an estimate
		// without gas.
		params, changed, err := limits.CapBlockOverrideGas(params, 3, limit)
		if err != nil {
			return nil, false, err
		}
		gas, present := limits.CallGas(params)
		if present && gas <= limit || !present && kind == methods.GasEstimated {
			return params, changed, nil
		}
		if first := jsonrpc.Element(params, 0); !present && (len(first) == 0 || first[0] != '{') {
			return params, changed, nil // no call object: the node refuses the call
		}
		out, err := limits.CapGas(params, limit)
		return out, err == nil, err
	}
	return params, false, nil
}
