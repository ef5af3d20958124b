package pipeline

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// gasCap is THE gas rule of the methods that run code with a gas a client
// sets (methods.LimitGasCap: eth_call, eth_estimateGas,
// eth_createAccessList, eth_fillTransaction, eth_simulateV1;
// docs/limits.md, "Gas cap"):
//
//   - a gas the client gave above the plan's factor times the head block's
//     gas limit is lowered to it, as go-ethereum's rpc.gascap does (not
//     refused); so is a block override's gasLimit;
//   - where the node would run a call without gas with its own cap
//     (methods.GasNodeCap: eth_call), nodegate fills in the plan's cap, but
//     never more than the network's nodes accept: when a node refuses the
//     filled gas as above its transaction gas cap (EIP-7825's 2^24, which
//     Hardhat 3 enforces on eth_call and go-ethereum does not), the call is
//     sent again with 2^24 and every later call of the network is filled
//     with at most that (nodeGasCap), so no answer becomes an error;
//   - where the node estimates the gas within the block's gas limit
//     (methods.GasEstimated), an absent gas is left to it.
//
// Without a head (nil, or not learned yet) the node's own cap applies.
type gasCap struct {
	limits *limits.Set
	head   GasLimiter
	// node is what the network's nodes accept as a call's gas (nil: no
	// bound learned, as for a network assembled without one).
	node *nodeGasCap
}

// nodeGasCap is the most gas nodegate fills into a call without one on a
// network, learned from a node's refusal: 0 until one refused.
type nodeGasCap struct{ max atomic.Uint64 }

func (n *nodeGasCap) get() uint64 {
	if n == nil {
		return 0
	}
	return n.max.Load()
}

func (n *nodeGasCap) learn(gas uint64) {
	if n != nil {
		n.max.Store(gas)
	}
}

// txGasCap is EIP-7825's transaction gas cap (2^24), the most a node that
// enforces it on calls accepts.
const txGasCap = params.MaxTxGas

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
		fill := limit // the gas a call without one is sent with
		if learned := g.node.get(); learned != 0 {
			fill = min(fill, learned)
		}
		resp, filled := g.send(ctx, c, next, limit, fill)
		if filled && fill > txGasCap && refusesGas(resp) {
			// The node refuses more than EIP-7825's cap: learn it, and send
			// the call again within it, on its own (its batch has gone).
			g.node.learn(txGasCap)
			slog.Info("gas cap: a node refused a call's gas above EIP-7825's cap; calls without gas are sent with at most it",
				"method", methods.Label(c.Req.Method), "filled", fill, "cap", txGasCap, "answer", resp.Err.Message)
			c.leaveBatch()
			resp, _ = g.send(ctx, c, next, limit, min(limit, txGasCap))
		}
		return resp
	}
}

// send passes c on with its gas capped at limit, or filled with fill where
// the rule of its method fills an absent one; filled says whether it did.
func (g gasCap) send(ctx context.Context, c *Call, next Handler, limit, fill uint64) (resp *jsonrpc.Response, filled bool) {
	params, changed, filled, err := capParams(c.Rule.Gas, c.Req.Params, limit, fill)
	if err != nil {
		// Not reachable after the ingress checked the JSON; refusing is
		// safer than sending the gas uncapped.
		slog.Error("gas cap: cannot rewrite params", "method", methods.Label(c.Req.Method), "err", err)
		return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("internal error")), false
	}
	if !changed {
		return next(ctx, c), false
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
	return next(ctx, sub), filled
}

// refusesGas reports whether resp is a node's refusal of a call's gas as
// above its cap: Hardhat's "transaction gas limit (…) is greater than the
// cap (…)", go-ethereum's "transaction gas limit too high (cap: …)", and
// the like. A revert (code 3) is an answer, never a refusal.
func refusesGas(resp *jsonrpc.Response) bool {
	if resp == nil || resp.Err == nil || resp.Err.Code == 3 {
		return false
	}
	msg := strings.ToLower(resp.Err.Message)
	return strings.Contains(msg, "gas limit") &&
		(strings.Contains(msg, "cap") || strings.Contains(msg, "too high") || strings.Contains(msg, "exceed") || strings.Contains(msg, "greater"))
}

// capParams returns params with a gas the client gave capped at limit, and
// an absent one filled with fill where kind says so; changed says whether
// anything changed, filled whether the gas was filled in.
func capParams(kind methods.Gas, params json.RawMessage, limit, fill uint64) (out json.RawMessage, changed, filled bool, err error) {
	switch kind {
	case methods.GasSimulated:
		out, changed, err = limits.CapSimulateGas(params, limit)
		return out, changed, false, err
	case methods.GasEstimated, methods.GasNodeCap:
		// The block overrides (eth_call's and eth_estimateGas's fourth
		// param) may raise the block's gas limit, which bounds an estimate
		// without gas.
		params, changed, err := limits.CapBlockOverrideGas(params, 3, limit)
		if err != nil {
			return nil, false, false, err
		}
		gas, present := limits.CallGas(params)
		if present && gas <= limit || !present && kind == methods.GasEstimated {
			return params, changed, false, nil
		}
		if first := jsonrpc.Element(params, 0); !present && (len(first) == 0 || first[0] != '{') {
			return params, changed, false, nil // no call object: the node refuses the call
		}
		gas = limit
		if !present {
			gas = fill
		}
		out, err := limits.CapGas(params, gas)
		return out, err == nil, !present, err
	}
	return params, false, false, nil
}
