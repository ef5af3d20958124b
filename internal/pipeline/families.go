package pipeline

import (
	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/starknet"
)

// This file says which stages each network family brings, and with what.
// The pipeline places them after the key policy (stages.go: order); each
// stage holds its own dependencies, so the network carries none of them.

// EVM is what the EVM family's stages hold. Its zero value is a network
// under docs/spec.md's limits, with the node's own gas cap and no share of
// local CPUs.
type EVM struct {
	// Limits are the network's per-method limits, per plan (nil:
	// docs/spec.md's): held by the eth_getLogs, filter and gas-cap stages.
	Limits *limits.Set
	// Gas knows the head block's gas limit, for the gas cap (nil: no cap
	// at the gateway, the node's own applies).
	Gas GasLimiter
	// Execution, when set, gives each key its turns for the methods that
	// run code (methods.Rule.Executes): its ExecutionShare at once, per
	// process. Set where they run on this process's CPUs (the embedded
	// node), so that one key cannot take them all; nil: no share.
	Execution *admission.Keys
}

// Stages are the EVM family's stages, in order: the limits, then the
// execution bounds.
func (e EVM) Stages() []Stage {
	return []Stage{
		getLogsLimits{e.Limits},                                      // eth_getLogs: -32005 over the parameter, result or duration limit
		filterLimits{e.Limits, newFilterBook()},                      // filters: the installing key's only; log filters and logs subscriptions under eth_getLogs's limits (filters.go)
		gasCap{limits: e.Limits, head: e.Gas, node: new(nodeGasCap)}, // methods that run code: gas lowered to the cap, filled within what the node accepts (gascap.go)
		newExecutionLimits(e.Execution),                              // methods that run code: the key's share of local CPUs, the plan's call_timeout (execution.go)
	}
}

// Starknet is what the Starknet family's stages hold.
type Starknet struct {
	// Pending reads the network's pending pool (through its pool).
	Pending *starknet.Pending
}

// Stages are the Starknet family's stages: the methods that run code
// within the plan's call_timeout; the pending-transactions methods are
// answered by the gateway.
func (s Starknet) Stages() []Stage {
	return []Stage{
		newExecutionLimits(nil),        // methods that run code: the plan's call_timeout (execution.go)
		pendingTransactions{s.Pending}, // rollup_/starknet_pendingTransactions from the node's pending pool (pending.go)
	}
}

// familyStages are the stages n's family brings (n.Stages; see
// Network.init for a network assembled without them).
func (n *Network) familyStages() []Stage {
	if n == nil {
		return nil
	}
	n.init()
	return n.Stages
}

// limitsHolder is a stage that holds the network's limits: WithLimits
// gives it others.
type limitsHolder interface {
	withLimits(set *limits.Set) Stage
}

// WithLimits is n with other method limits (a reload): the stages that
// hold limits are made again with set; every other stage, the nodes, the
// route and its cache are n's own, shared.
func (n *Network) WithLimits(set *limits.Set) *Network {
	stages := append([]Stage(nil), n.familyStages()...)
	for i, s := range stages {
		if h, ok := s.(limitsHolder); ok {
			stages[i] = h.withLimits(set)
		}
	}
	var versions map[string]*Network
	if len(n.Versions) > 0 {
		versions = make(map[string]*Network, len(n.Versions))
		for v, vn := range n.Versions {
			versions[v] = vn.WithLimits(set)
		}
	}
	return &Network{
		Name: n.Name, ChainID: n.ChainID, Methods: n.Methods,
		Upstream: n.Upstream, Pool: n.pool(), Partners: n.Partners, Subs: n.Subs,
		Route: n.Route, Stages: stages, Versions: versions,
	}
}
