package evmnode

import (
	"runtime"
	"time"
)

// Config selects what the embedded node runs.
type Config struct {
	// ChainDir, when set, holds genesis.json and chain.rlp (and optionally
	// headfcu.json) to import instead of starting a dev chain.
	ChainDir string
	// BlockTime is the dev chain's block period; 0 seals a block per transaction.
	BlockTime time.Duration
	// DevAccounts is how many funded accounts the dev chain has (default 10).
	DevAccounts int
	// GasCap caps eth_call/eth_estimateGas gas inside the node; 0 means
	// 10 times the genesis gas limit (docs/spec.md, Limits).
	GasCap uint64
	// GasCapFactor replaces GasCapFactor (10) in the default GasCap, so
	// that the node allows what the gateway's most generous plan allows.
	GasCapFactor uint64
	// HTTPAddr, when set, also serves plain JSON-RPC over HTTP and
	// WebSocket on this address (host:port), as `nodegate node` does.
	HTTPAddr string
	// CallTimeout is the node's own limit on one eth_call or
	// eth_estimateGas (go-ethereum's RPCEVMTimeout); 0 keeps its 5s.
	CallTimeout time.Duration
	// PrunedState keeps only the recent blocks' state, as a default
	// go-ethereum full node does (path scheme: the last 128 blocks); a
	// call reading older state gets go-ethereum's "historical state … is
	// not available". Default false: an archive node, every block's state.
	PrunedState bool
	// MaxConcurrent bounds the calls Node.Do serves at once; 0 means
	// DefaultMaxConcurrent.
	MaxConcurrent int
	// MaxChainBytes bounds what the blocks made after the start may hold
	// (chainbudget.go); past it Node.Do refuses transactions. 0 means
	// DefaultMaxChainBytes; negative, no bound.
	MaxChainBytes int64
	// MaxChainBytesPerAccount is each account's share of it
	// (chainshare.go): past it Node.Do refuses that account's
	// transactions only. 0 means MaxChainBytes / DefaultShareDivisor;
	// negative, no share.
	MaxChainBytesPerAccount int64
}

// DefaultMaxConcurrent is Node.Do's bound: twice the CPUs Go uses, and at
// least four.
func DefaultMaxConcurrent() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// GasCapFactor is docs/spec.md's cap: 10 times (1000 percent) the block gas limit.
const GasCapFactor = 10

// devGasLimit is the dev chain's block gas limit.
const devGasLimit = 30_000_000
