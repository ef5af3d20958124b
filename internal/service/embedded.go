package service

import (
	"context"
	"fmt"
	"runtime"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/family"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
)

// embedded is what the process gives every network's family
// (family.Embedded): its embedded node and devnet, each started on first
// use and kept for the process (s.Node, s.Devnet), the network's limits
// and the process's admission.
func (s *Service) embedded(cfg config.Config) family.Embedded {
	return family.Embedded{
		Node: func(ctx context.Context) (*evmnode.Node, error) {
			if s.Node == nil {
				n, err := evmnode.Start(ctx, evmnode.Config{ChainDir: cfg.Node.ChainDir, BlockTime: cfg.Node.BlockTime, MaxChainBytes: cfg.Node.MaxChainBytes,
					MaxChainBytesPerAccount: cfg.Node.MaxChainBytesPerAccount,
					GasCapFactor:            limitsOf(cfg.Limits).MaxGasCapFactor(cfg.PlanSet()), CallTimeout: s.longestCallTimeout()})
				if err != nil {
					return nil, err
				}
				s.Node = n
			}
			return s.Node, nil
		},
		Devnet: func(d config.Devnet) (*devnet.Devnet, error) {
			if s.Devnet == nil {
				dev, err := devnet.New(devnet.Config{ChainID: d.ChainID, BlockTime: d.BlockTime, MaxPending: d.MaxPending, KeepBlocks: d.KeepBlocks,
					MaxPendingBytes: d.MaxPendingBytes, KeepBytes: d.KeepBytes, MaxAccounts: d.MaxAccounts})
				if err != nil {
					return nil, fmt.Errorf("embedded devnet: %w", err)
				}
				s.Devnet = dev
			}
			return s.Devnet, nil
		},
		Limits:    limitsOf(cfg.Limits),
		Execution: s.admission,
	}
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
