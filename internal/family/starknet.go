package family

import (
	"context"
	"log/slog"
	"strings"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// Starknet is the Starknet family (docs/starknet.md): Starknet JSON-RPC
// nodes, the embedded devnet.
var Starknet = register(Family{
	Kind:             familykind.Starknet,
	Methods:          methods.FamilyStarknet,
	NormalizeChainID: func(s string) (string, error) { return strings.ToLower(s), nil }, // a felt, compared as text
	BatchSize:        starknetBatchSize,
	Versions:         starknetVersions,
	Member:           starknetMember,
	Stages:           starknetStages,
})

// StarknetV08 names Starknet JSON-RPC 0.8 in a versioned path
// (/v3/<key>/rpc/v0_8), as Juno and Pathfinder name it.
const StarknetV08 = "v0_8"

// starknetBatchSize: a Starknet HTTP node takes upstream batches only
// when its batch_size says so: nodegate does not assume that a Starknet
// node accepts them. The embedded devnet does (devnet.Devnet.Do), and
// takes them as an EVM node does.
func starknetBatchSize(uc config.Upstream) int {
	if uc.URL != config.EmbeddedURL && uc.BatchSize == 0 {
		return 1
	}
	return uc.BatchSize
}

// starknetVersions: a network served by the embedded devnet alone also
// speaks Starknet JSON-RPC 0.8 at /v3/<key>/rpc/v0_8 (the devnet's Do08);
// a network of HTTP nodes speaks what its nodes' URLs answer.
func starknetVersions(nc config.Network) []string {
	if onlyEmbedded(nc) {
		return []string{StarknetV08}
	}
	return nil
}

// starknetMember is one member of a starknet network: the embedded
// devnet (whose devnet_ methods the network's table then admits), in
// Starknet JSON-RPC 0.10 or, for version StarknetV08, 0.8; or an HTTP
// node. The pending-transactions methods are not the member's business:
// the network's pending stage answers them (newPending).
func starknetMember(_ context.Context, e Embedded, nc config.Network, uc config.Upstream, table *methods.Table, version string) (upstream.Upstream, error) {
	if uc.URL != config.EmbeddedURL {
		return transport.NewHTTP(uc.URL)
	}
	dev, err := e.Devnet(nc.Starknet.Devnet)
	if err != nil {
		return nil, err
	}
	table.EnableDevnet()
	if version == StarknetV08 {
		return upstream.Func{ID: "embedded-starknet-v0_8", Fn: dev.Do08}, nil
	}
	return upstream.Func{ID: "embedded-starknet", Fn: dev.Do}, nil
}

// starknetStages: the pending-pool reader.
func starknetStages(ctx context.Context, _ Embedded, nc config.Network, pool *upstream.Pool) ([]pipeline.Stage, error) {
	p, err := newPending(ctx, nc, pool)
	if err != nil {
		return nil, err
	}
	return pipeline.Starknet{Pending: p}.Stages(), nil
}

// newPending makes a starknet network's pending-pool reader, which reads
// through the network's pool, and resolves its mode now when it can (else
// on first use). On a network served by the embedded devnet alone, auto
// means forward: the devnet's starknet_pendingTransactions is its pool.
func newPending(ctx context.Context, nc config.Network, pool *upstream.Pool) (*starknet.Pending, error) {
	mode, err := starknet.ParsePendingMode(nc.Starknet.PendingMode)
	if err != nil {
		return nil, err
	}
	if onlyEmbedded(nc) {
		mode = starknet.DevnetPendingMode(mode)
	}
	p, err := starknet.NewPending(pool, mode)
	if err != nil {
		return nil, err
	}
	if err := p.Detect(ctx); err != nil {
		slog.Warn("starknet spec version not detected yet; retried on first use", "network", nc.Name, "err", err)
	}
	return p, nil
}
