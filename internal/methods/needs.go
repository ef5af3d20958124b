package methods

// Needs is what a node must still hold at the block a call names to
// answer it (Rule.Needs): a pruned node keeps the state of recent blocks
// only, and a node with pruned history (go-ethereum's history pruning, a
// provider's "full" node) drops old blocks' bodies, receipts and logs.
// The pool sends such a call only to members whose floor of that kind is
// at or below the block (internal/upstream, floor.go).
type Needs uint8

// The kinds of Needs.
const (
	// NeedsNothing: the answer needs neither old state nor old history.
	NeedsNothing Needs = iota
	// NeedsState: the call reads the state (accounts, storage, code) at
	// its block, or runs code on it.
	NeedsState
	// NeedsHistory: the call reads a block's body, its receipts or its
	// logs (go-ethereum prunes the three together; headers are kept).
	NeedsHistory
	NumNeeds
)

// String names the kind as errors, status and metrics say it.
func (n Needs) String() string {
	switch n {
	case NeedsState:
		return "state"
	case NeedsHistory:
		return "logs"
	}
	return "nothing"
}

// needsOf is the one table of what each method needs at the block it
// names; a method not here needs nothing old (or names no block). Each
// method here names its block by number (its Rule.Block, a param or a log
// filter): TestNeedsNameABlock.
var needsOf = map[string]Needs{
	"eth_getBalance":          NeedsState,
	"eth_getCode":             NeedsState,
	"eth_getTransactionCount": NeedsState,
	"eth_getStorageAt":        NeedsState,
	"eth_getStorageValues":    NeedsState,
	"eth_getProof":            NeedsState,
	"eth_call":                NeedsState,
	"eth_estimateGas":         NeedsState,
	"eth_createAccessList":    NeedsState,
	"eth_simulateV1":          NeedsState,

	"eth_getLogs":                                NeedsHistory,
	"eth_getBlockReceipts":                       NeedsHistory,
	"eth_getBlockByNumber":                       NeedsHistory,
	"eth_getTransactionByBlockNumberAndIndex":    NeedsHistory,
	"eth_getRawTransactionByBlockNumberAndIndex": NeedsHistory,
	"eth_getBlockTransactionCountByNumber":       NeedsHistory,
}
