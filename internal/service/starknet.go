package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/upstream"
)

// makeStarknetUpstream makes one member of a starknet network: the
// embedded devnet (whose devnet_ methods the network's table then admits)
// or an HTTP node. The pending-transactions methods are not the member's
// business: the network's pending stage answers them (newPending).
func (s *Service) makeStarknetUpstream(uc config.Upstream, nc config.Network, table *methods.Table) (upstream.Upstream, error) {
	if uc.URL != config.EmbeddedURL {
		h, err := upstream.NewHTTP(uc.URL)
		if err != nil {
			return nil, err
		}
		return named{h, uc.Name}, nil
	}
	if s.Devnet == nil {
		d := nc.Starknet.Devnet
		dev, err := starknet.NewDevnet(starknet.DevnetConfig{ChainID: d.ChainID, BlockTime: d.BlockTime, MaxPending: d.MaxPending, KeepBlocks: d.KeepBlocks})
		if err != nil {
			return nil, fmt.Errorf("embedded devnet: %w", err)
		}
		s.Devnet = dev
	}
	table.EnableDevnet()
	return upstream.Func{ID: "embedded-starknet", Fn: s.Devnet.Do}, nil
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

// memberBatchSize is an upstream's batch size. A starknet network's HTTP
// node takes upstream batches only when its batch_size says so: nodegate
// does not assume that a Starknet node accepts them. The embedded devnet
// does (starknet.Devnet.Do), and takes them as an EVM node does.
func memberBatchSize(family methods.Family, uc config.Upstream) int {
	if family == methods.FamilyStarknet && uc.URL != config.EmbeddedURL && uc.BatchSize == 0 {
		return 1
	}
	return uc.BatchSize
}
