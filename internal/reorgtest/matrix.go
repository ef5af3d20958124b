package reorgtest

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// The lagging-pool matrix (issue 31): what a client of a pool whose
// members lag one another sees go wrong, counted against the tree so that
// what a reorganisation rightly changes is not counted.

// matrix asks for the logs of the latest block by number and for its
// first transaction by number and index.
func (p *Poller) matrix(ctx context.Context, latest ref) {
	n := fmt.Sprintf(`"%s"`, latest.Number)
	// An error is a fault only while the block is still canonical: after
	// a reorganisation to a shorter chain a node itself answers "block
	// range extends beyond current head block".
	var logs []struct{}
	if err := p.ask(ctx, "eth_getLogs", fmt.Sprintf(`[{"fromBlock":%s,"toBlock":%s}]`, n, n), &logs); err != nil &&
		ctx.Err() == nil && p.stillCanonical(latest.Hash, uint64(latest.Number)) {
		p.C.fail(err)
		p.C.LogsErrors++
	}
	if len(p.Tree.Txs(latest.Hash)) == 0 {
		return
	}
	var tx *struct {
		BlockHash common.Hash `json:"blockHash"`
	}
	if !p.call(ctx, "eth_getTransactionByBlockNumberAndIndex", "["+n+`,"0x0"]`, &tx) {
		return
	}
	if tx != nil {
		p.judge(tx.BlockHash)
		return
	}
	if p.stillCanonical(latest.Hash, uint64(latest.Number)) {
		p.C.ByIndexNulls++
	}
}

// nullReceipt judges a null receipt of tx, of block hash at number: a
// fault when the client was given the receipt before, the block is still
// canonical (no reorganisation took the transaction away) and it is on
// the branch of latest, the head the client was given (the builder's
// canonical block at that height may be of a fork no member has
// imported yet: every node would answer null).
func (p *Poller) nullReceipt(tx, hash common.Hash, number uint64, latest common.Hash) {
	if seen, ok := p.receipts[tx]; ok && p.stillCanonical(hash, number) && p.Tree.Ancestor(hash, latest) {
		p.C.NullAfterSeen++
		p.traceNull(tx, hash, latest, seen)
	}
}

// stillCanonical reports whether hash is the builder's block at number now.
func (p *Poller) stillCanonical(hash common.Hash, number uint64) bool {
	h, ok := p.Tree.Canonical(number)
	return ok && h == hash
}
