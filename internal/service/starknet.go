package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// starknetV08 names Starknet JSON-RPC 0.8 in a versioned path
// (/v3/<key>/rpc/v0_8), as Juno and Pathfinder name it.
const starknetV08 = "v0_8"

// makeStarknetUpstream makes one member of a starknet network: the
// embedded devnet (whose devnet_ methods the network's table then admits),
// in Starknet JSON-RPC 0.10 or, for version starknetV08, 0.8; or an HTTP
// node. The pending-transactions methods are not the member's business:
// the network's pending stage answers them (newPending).
func (s *Service) makeStarknetUpstream(uc config.Upstream, nc config.Network, table *methods.Table, version string) (upstream.Upstream, error) {
	if uc.URL != config.EmbeddedURL {
		h, err := transport.NewHTTP(uc.URL)
		if err != nil {
			return nil, err
		}
		return named{h, uc.Name}, nil
	}
	if s.Devnet == nil {
		d := nc.Starknet.Devnet
		dev, err := devnet.New(devnet.Config{ChainID: d.ChainID, BlockTime: d.BlockTime, MaxPending: d.MaxPending, KeepBlocks: d.KeepBlocks,
			MaxPendingBytes: d.MaxPendingBytes, KeepBytes: d.KeepBytes, MaxAccounts: d.MaxAccounts})
		if err != nil {
			return nil, fmt.Errorf("embedded devnet: %w", err)
		}
		s.Devnet = dev
	}
	table.EnableDevnet()
	if version == starknetV08 {
		return named{upstream.Func{ID: "embedded-starknet-v0_8", Fn: s.Devnet.Do08}, uc.Name}, nil
	}
	return named{upstream.Func{ID: "embedded-starknet", Fn: s.Devnet.Do}, uc.Name}, nil
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

// onlyEmbedded reports whether every upstream of nc is the embedded node.
func onlyEmbedded(nc config.Network) bool {
	for _, uc := range nc.Upstreams {
		if uc.URL != config.EmbeddedURL {
			return false
		}
	}
	return len(nc.Upstreams) > 0
}
