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

// makeStarknetUpstream makes one member of a starknet network: the node
// (the embedded devnet or an HTTP node) behind the rollup adapter that
// answers rollup_pendingTransactions in the way the node supports.
func (s *Service) makeStarknetUpstream(ctx context.Context, nc config.Network, uc config.Upstream, table *methods.Table) (upstream.Upstream, error) {
	var inner upstream.Upstream
	if uc.URL == config.EmbeddedURL {
		if s.Devnet == nil {
			d := nc.Starknet.Devnet
			dev, err := starknet.NewDevnet(starknet.DevnetConfig{ChainID: d.ChainID, BlockTime: d.BlockTime, MaxPending: d.MaxPending, KeepBlocks: d.KeepBlocks})
			if err != nil {
				return nil, fmt.Errorf("embedded devnet: %w", err)
			}
			s.Devnet = dev
		}
		inner = upstream.Func{ID: "embedded-starknet", Fn: s.Devnet.Do}
		table.EnableDevnet()
	} else {
		h, err := upstream.NewHTTP(uc.URL)
		if err != nil {
			return nil, err
		}
		inner = named{h, uc.Name}
	}
	mode, err := starknet.ParsePendingMode(nc.Starknet.PendingMode)
	if err != nil {
		return nil, err
	}
	if uc.URL == config.EmbeddedURL {
		mode = starknet.DevnetPendingMode(mode)
	}
	rollup, err := starknet.NewRollup(inner, mode)
	if err != nil {
		return nil, err
	}
	if err := rollup.Pending().Detect(ctx); err != nil {
		slog.Warn("starknet spec version not detected yet; retried on first use", "network", nc.Name, "upstream", uc.Name, "err", err)
	}
	return rollup, nil
}
