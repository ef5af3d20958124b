package family

import (
	"context"
	"encoding/json"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
	"github.com/nodegate/nodegate/internal/upstream"
)

// A Family is everything a network family brings to a network, asked
// once per network by the service when it builds one: its name and the
// methods that say its head and chain id (familykind.Kind), its method table,
// how a chain id is compared, whether it follows newHeads and keeps final
// answers, its members' default batch size, the JSON-RPC versions it also
// serves, how it reaches a configured upstream and its stages.
type Family struct {
	familykind.Kind
	// Methods names the family's method table (methods.NewTable).
	Methods methods.Family
	// NumericChainID: the chain id is a number, so a network's chain_id is
	// checked against its members' and a network without one takes its
	// first member's; else (a felt) it is only checked between members.
	NumericChainID bool
	// NormalizeChainID is a member's answer to ChainIDMethod, as compared
	// between members: a decimal number, or the felt's lowercase hex.
	NormalizeChainID func(answer string) (string, error)
	// FollowsNewHeads: a member that can push is followed by its newHeads
	// subscription; else every member is polled with HeadMethod.
	FollowsNewHeads bool
	// Caches: the family tracks finality and keeps final answers when the
	// network's cache is on.
	Caches bool
	// BatchSize is a member's upstream batch size (0: the pool's default).
	BatchSize func(uc config.Upstream) int
	// Versions are the JSON-RPC versions nc also serves besides its
	// default, by the path segment that names them (pipeline.Network
	// Versions); nil: the default only.
	Versions func(nc config.Network) []string
	// Member is one configured upstream of nc, reached in the JSON-RPC
	// version named by version ("" the default; else one of Versions(nc));
	// table is the network's, which an embedded member may widen. The
	// service names it as configured.
	Member func(ctx context.Context, e Embedded, nc config.Network, uc config.Upstream, table *methods.Table, version string) (upstream.Upstream, error)
	// Stages are the family's pipeline stages for nc, each holding what it
	// needs; pool is the network's.
	Stages func(ctx context.Context, e Embedded, nc config.Network, pool *upstream.Pool) ([]pipeline.Stage, error)
	// Verify, when set, is the check of members' answers on nc
	// (upstream.PoolConfig.Verify; nil: answers are not checked).
	Verify func(nc config.Network) func(upstream.Call, json.RawMessage) error
	// VerifyMore, when set, is the check of members' answers on nc that
	// asks the member more (upstream.PoolConfig.VerifyMore; nil: none).
	VerifyMore func(nc config.Network) func(context.Context, upstream.Call, json.RawMessage, upstream.Ask) error
}

// Embedded is what the process running the networks gives a family's
// members and stages: its embedded nodes, started on first use and shared
// by every network (one of each per process), and what a network's stages
// hold that outlives it.
type Embedded struct {
	// Node is the embedded go-ethereum node, started on first call.
	Node func(ctx context.Context) (*evmnode.Node, error)
	// Devnet is the embedded Starknet devnet, started on first call with
	// the configuration of the first network that asks for it.
	Devnet func(d config.Devnet) (*devnet.Devnet, error)
	// Limits are the network's per-method limits (nil: docs/spec.md's).
	Limits *limits.Set
	// Execution is the process's admission: each key's turns for the
	// methods that run code on this process's CPUs (the embedded node).
	Execution *admission.Keys
}

// families are the families by name. Each family's file adds its own
// (register) and familykind.All is the one list of them, in order: a new
// family is a file of this package and one line in familykind.All
// (TestKindsAreFamilies: every kind has its family, every family a kind).
var families = map[string]Family{}

// register adds f to the families; it is how each family's value is made.
func register(f Family) Family {
	families[f.Name] = f
	return f
}

// Of is the family a network's configuration names ("" the default).
// Config validation admits only Names, so an unknown name, which only a
// configuration that was not validated can give, is the default's.
func Of(name string) Family {
	k, ok := familykind.Of(name)
	if !ok {
		k = familykind.All[0]
	}
	return families[k.Name]
}

// Names are the families' names (what config validates against).
func Names() []string { return familykind.Names() }

// servesEmbedded reports whether the embedded node is one of nc's upstreams.
func servesEmbedded(nc config.Network) bool {
	for _, uc := range nc.Upstreams {
		if uc.URL == config.EmbeddedURL {
			return true
		}
	}
	return false
}

// onlyEmbedded reports whether every upstream of nc is the embedded node.
func onlyEmbedded(nc config.Network) bool {
	for _, uc := range nc.Upstreams {
		if uc.URL != config.EmbeddedURL {
			return false
		}
	}
	return len(nc.Upstreams) > 0
}
