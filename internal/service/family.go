package service

import (
	"context"
	"runtime"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
)

// A family is what a network family brings to a network, asked once per
// network by buildNetwork: its method table, the methods that say its
// head and chain id, whether it keeps final answers, its members' default
// batch size, how it reaches a configured upstream, and its stages. Each
// family is one value in families; a third family is one new file.
type family interface {
	// methods names the family's method table (methods.NewTable).
	methods() methods.Family
	// headMethod answers the head block's number ("" the pool's default).
	headMethod() string
	// chainIDMethod answers the chain id (the pool's chain check).
	chainIDMethod() string
	// numericChainID: the chain id is a number (EVM), the network's
	// chain_id is checked and a network without one takes its first
	// member's; else it is a felt only checked between members.
	numericChainID() bool
	// caches: the family tracks finality and keeps final answers when the
	// network's cache is on.
	caches() bool
	// memberBatchSize is a member's upstream batch size.
	memberBatchSize(uc config.Upstream) int
	// upstream is one configured member of nc (table: the network's, which
	// an embedded upstream may widen), reached in the JSON-RPC version
	// named by version ("" the default; else one of versions(nc)).
	upstream(ctx context.Context, s *Service, cfg config.Config, nc config.Network, uc config.Upstream, table *methods.Table, version string) (upstream.Upstream, error)
	// versions are the JSON-RPC versions nc also serves besides its
	// default, by the path segment that names them (pipeline.Network
	// Versions); nil: the default only.
	versions(nc config.Network) []string
	// stages are the family's pipeline stages, with what each holds;
	// adm is the process's admission (each key's execution turns).
	stages(ctx context.Context, cfg config.Config, nc config.Network, pool *upstream.Pool, adm *admission.Keys) ([]pipeline.Stage, error)
}

// families are the network families by their config name (config.Network
// Family; "" is evm).
var families = map[string]family{
	"":         evmFamily{},
	"evm":      evmFamily{},
	"starknet": starknetFamily{},
}

// familyOf is nc's family (config validation admits only the names of
// families).
func familyOf(nc config.Network) family {
	if f, ok := families[nc.Family]; ok {
		return f
	}
	return evmFamily{}
}

// evmFamily is the EVM family: Ethereum JSON-RPC nodes, the embedded node.
type evmFamily struct{}

func (evmFamily) methods() methods.Family                { return methods.FamilyEVM }
func (evmFamily) headMethod() string                     { return "" }
func (evmFamily) chainIDMethod() string                  { return "eth_chainId" }
func (evmFamily) numericChainID() bool                   { return true }
func (evmFamily) caches() bool                           { return true }
func (evmFamily) memberBatchSize(uc config.Upstream) int { return uc.BatchSize }

func (evmFamily) upstream(ctx context.Context, s *Service, cfg config.Config, _ config.Network, uc config.Upstream, _ *methods.Table, _ string) (upstream.Upstream, error) {
	return s.makeUpstream(ctx, cfg, uc)
}

func (evmFamily) versions(config.Network) []string { return nil }

// stages: the EVM family's limits, the head's gas limit for the gas cap
// and, on the embedded node, each key's share of this process's CPUs
// (adm's turns, executionShare).
func (evmFamily) stages(_ context.Context, cfg config.Config, nc config.Network, pool *upstream.Pool, adm *admission.Keys) ([]pipeline.Stage, error) {
	evm := pipeline.EVM{Limits: limitsOf(cfg.Limits), Gas: pool} // the pool knows its head block's gas limit
	if servesEmbedded(nc) {
		evm.Execution = adm
	}
	return evm.Stages(), nil
}

// executionShare is how many calls that run code on this process's CPUs
// (the embedded node's eth_call…) one account may run at once, across
// every network and reload: half the CPUs, at least one.
func executionShare() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// executionSlots is how many calls that run code the embedded node runs at
// once for every account together (shared in turns: admission.Turn): as
// many as the CPUs, twice an account's share, so that one account alone
// leaves the others slots; always fewer than the node's own bound on calls
// at once (evmnode.DefaultMaxConcurrent), so that the calls that run no
// code, which never wait for these slots, find a place there.
func executionSlots() int { return max(1, runtime.GOMAXPROCS(0)) }

// starknetFamily is the Starknet family (docs/starknet.md): Starknet
// JSON-RPC nodes, the embedded devnet (starknet.go).
type starknetFamily struct{}

func (starknetFamily) methods() methods.Family { return methods.FamilyStarknet }
func (starknetFamily) headMethod() string      { return "starknet_blockNumber" }
func (starknetFamily) chainIDMethod() string   { return "starknet_chainId" }
func (starknetFamily) numericChainID() bool    { return false }
func (starknetFamily) caches() bool            { return false }

// memberBatchSize: a Starknet HTTP node takes upstream batches only when
// its batch_size says so: nodegate does not assume that a Starknet node
// accepts them. The embedded devnet does (devnet.Devnet.Do), and takes
// them as an EVM node does.
func (starknetFamily) memberBatchSize(uc config.Upstream) int {
	if uc.URL != config.EmbeddedURL && uc.BatchSize == 0 {
		return 1
	}
	return uc.BatchSize
}

func (starknetFamily) upstream(_ context.Context, s *Service, _ config.Config, nc config.Network, uc config.Upstream, table *methods.Table, version string) (upstream.Upstream, error) {
	return s.makeStarknetUpstream(uc, nc, table, version)
}

// versions: a network served by the embedded devnet alone also speaks
// Starknet JSON-RPC 0.8 at /v3/<key>/rpc/v0_8 (the devnet's Do08); a
// network of HTTP nodes speaks what its nodes' URLs answer.
func (starknetFamily) versions(nc config.Network) []string {
	if onlyEmbedded(nc) {
		return []string{starknetV08}
	}
	return nil
}

// stages: the pending-pool reader.
func (starknetFamily) stages(ctx context.Context, _ config.Config, nc config.Network, pool *upstream.Pool, _ *admission.Keys) ([]pipeline.Stage, error) {
	p, err := newPending(ctx, nc, pool)
	if err != nil {
		return nil, err
	}
	return pipeline.Starknet{Pending: p}.Stages(), nil
}
