package evmnode

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"
)

// Node is a running in-process go-ethereum node.
type Node struct {
	stack    *node.Node
	eth      *eth.Ethereum
	beacon   *catalyst.SimulatedBeacon
	seal     sealer
	server   *rpc.Server
	accounts []Account
	chainID  uint64
	gasCap   uint64
	slots    chan struct{} // see Do
	size     chainSize     // see chainbudget.go
	shares   chainShares   // see chainshare.go
	stopSize chan struct{}
}

// modules are the namespaces served over the node's own HTTP/WS listener.
var modules = []string{"eth", "net", "web3", "txpool", "debug"}

// Start builds and starts the node, imports the chain when configured, and
// returns once the node can answer every query (transaction index done).
func Start(ctx context.Context, cfg Config) (*Node, error) {
	n := &Node{}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent()
	}
	n.slots = make(chan struct{}, cfg.MaxConcurrent)
	switch {
	case cfg.MaxChainBytes == 0:
		n.size.max = DefaultMaxChainBytes
	case cfg.MaxChainBytes > 0:
		n.size.max = cfg.MaxChainBytes
	}
	switch {
	case cfg.MaxChainBytesPerAccount == 0 && n.size.max > 0:
		n.shares.max = n.size.max / DefaultShareDivisor
	case cfg.MaxChainBytesPerAccount > 0:
		n.shares.max = cfg.MaxChainBytesPerAccount
	}
	genesis, err := n.genesis(cfg)
	if err != nil {
		return nil, err
	}
	stack, err := node.New(n.nodeConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("create node: %w", err)
	}
	n.stack = stack
	n.gasCap = cfg.GasCap
	if n.gasCap == 0 {
		factor := cfg.GasCapFactor
		if factor == 0 {
			factor = GasCapFactor
		}
		n.gasCap = factor * genesis.GasLimit
	}
	if err := n.startEth(ctx, cfg, genesis); err != nil {
		_ = stack.Close()
		return nil, err
	}
	return n, nil
}

func (n *Node) genesis(cfg Config) (*core.Genesis, error) {
	if cfg.ChainDir != "" {
		return loadGenesis(cfg.ChainDir)
	}
	count := cfg.DevAccounts
	if count <= 0 {
		count = 10
	}
	n.accounts = devAccounts(count)
	return devGenesis(n.accounts), nil
}

func (n *Node) nodeConfig(cfg Config) *node.Config {
	nc := node.DefaultConfig
	nc.DataDir = "" // in memory
	nc.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, NoDial: true, ListenAddr: ""}
	nc.IPCPath = ""
	nc.HTTPHost, nc.WSHost = "", ""
	if cfg.HTTPAddr != "" {
		host, port, err := net.SplitHostPort(cfg.HTTPAddr)
		if err == nil {
			p, _ := strconv.Atoi(port)
			nc.HTTPHost, nc.HTTPPort = host, p
			nc.WSHost, nc.WSPort = host, p
			nc.HTTPModules, nc.WSModules = modules, modules
			nc.HTTPVirtualHosts = []string{"*"}
			nc.HTTPCors = []string{"*"}
			nc.WSOrigins = []string{"*"}
		}
	}
	return &nc
}

func (n *Node) startEth(ctx context.Context, cfg Config, genesis *core.Genesis) error {
	ec := ethconfig.Defaults
	ec.Genesis = genesis
	ec.NetworkId = genesis.Config.ChainID.Uint64()
	ec.SyncMode = ethconfig.FullSync
	ec.NoPruning = true // archive: every block's state answers
	ec.StateScheme = rawdb.HashScheme
	if cfg.PrunedState {
		ec.NoPruning, ec.StateScheme = false, rawdb.PathScheme // a full node's recent states only
	}
	ec.TransactionHistory = 0 // index every transaction
	ec.RPCGasCap = n.gasCap
	if cfg.CallTimeout > 0 {
		ec.RPCEVMTimeout = cfg.CallTimeout
	}
	// The dev chain keeps its genesis gas limit (go-ethereum's miner would
	// raise it towards its own ceiling), so that the node's cap stays the
	// gateway's: the factor times the head block's gas limit.
	ec.Miner.GasCeil = genesis.GasLimit
	ec.EnablePreimageRecording = cfg.ChainDir == ""
	if cfg.ChainDir == "" {
		// As go-ethereum's --dev: any tip of at least 1 wei is mined, so a
		// dev transaction never sits in the pool for want of a tip.
		ec.Miner.GasPrice = big.NewInt(1)
	}
	backend, err := eth.New(n.stack, &ec)
	if err != nil {
		return fmt.Errorf("create eth service: %w", err)
	}
	n.eth = backend
	n.chainID = ec.NetworkId
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	n.stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(fs)}})
	// Registered after eth's own: its methods take their place (cancel_runs.go).
	chainAPI, err := cancellingChainAPI(backend.APIs(), backend.APIBackend)
	if err != nil {
		return fmt.Errorf("eth_createAccessList's deadline: %w", err)
	}
	n.stack.RegisterAPIs([]rpc.API{chainAPI})
	if cfg.ChainDir == "" {
		if err := n.newBeacon(cfg.BlockTime); err != nil {
			return err
		}
	}
	// Import and index before the node starts, so that its own HTTP/WS
	// listener (nodegate node) never answers from a half-imported chain.
	if cfg.ChainDir != "" {
		if err := importBlocks(backend.BlockChain(), cfg.ChainDir); err != nil {
			return err
		}
		if err := applyHeadFCU(backend.BlockChain(), cfg.ChainDir); err != nil {
			return err
		}
	}
	if err := n.waitIndexed(ctx); err != nil {
		return err
	}
	if err := n.stack.Start(); err != nil {
		return fmt.Errorf("start node: %w", err)
	}
	n.stopSize = make(chan struct{})
	go n.countBlocks(n.stopSize)
	if n.beacon != nil {
		n.startSealing(cfg.BlockTime)
		// A first, empty block starts go-ethereum's transaction indexer, so
		// that unknown hashes answer null rather than "indexing is in progress".
		_ = n.Commit()
		if err := n.waitIndexed(ctx); err != nil {
			return err
		}
	}
	srv, err := n.stack.RPCHandler()
	if err != nil {
		return fmt.Errorf("rpc handler: %w", err)
	}
	n.server = srv
	return nil
}

// newBeacon creates the dev chain's block producer. nodegate drives it
// itself (seal.go) rather than through go-ethereum's own loops, so that
// every seal, timed, per transaction or asked for, runs one at a time.
func (n *Node) newBeacon(time.Duration) error {
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, n.eth)
	if err != nil {
		return fmt.Errorf("create dev block producer: %w", err)
	}
	n.beacon = beacon
	return nil
}

// waitIndexed blocks until the transaction index covers the whole chain, so
// that unknown hashes answer null rather than "indexing is in progress".
func (n *Node) waitIndexed(ctx context.Context) error {
	bc := n.eth.BlockChain()
	if bc.CurrentBlock().Number.Sign() == 0 {
		return nil // a new chain: nothing to index, and the indexer waits for a first block
	}
	for {
		p, err := bc.TxIndexProgress()
		if err == nil && p.Done() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for transaction index: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Server is the node's JSON-RPC server (all namespaces, in process).
func (n *Node) Server() *rpc.Server { return n.server }

// Ethereum is the node's eth service, for tests and the dev tooling.
func (n *Node) Ethereum() *eth.Ethereum { return n.eth }

// Accounts are the funded dev accounts (none for an imported chain).
func (n *Node) Accounts() []Account { return n.accounts }

// ChainID is the chain's id.
func (n *Node) ChainID() uint64 { return n.chainID }

// GasCap is the gas cap configured in the node.
func (n *Node) GasCap() uint64 { return n.gasCap }

// HTTPEndpoint is the node's own HTTP address ("" when not listening).
func (n *Node) HTTPEndpoint() string { return n.stack.HTTPEndpoint() }

// Close stops the node.
func (n *Node) Close() error {
	if n.stopSize != nil {
		close(n.stopSize)
	}
	var err error
	if n.beacon != nil {
		n.stopSealing()
		err = n.beacon.Stop()
	}
	return errors.Join(err, n.stack.Close())
}
