package verify

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/nodegate/nodegate/internal/methods"
)

// The receipts-root check (Checks.ReceiptsRoot, opt-in): a receipt's
// status and gas, and a log's address, topics and data, are nowhere in a
// block's header but through its receiptsRoot. So a receipt, a block's
// receipts or logs are checked against the receipts of their block and
// its header, which the caller fetches (this package does no I/O): the
// header hashes to the block's hash, the receipts derive its receiptsRoot
// (go-ethereum's types.DeriveSha), and each receipt and log answered is
// the one those receipts hold.

// MaxRootBlocks bounds the blocks one answer's receipts-root check
// fetches: logs spread over more blocks are not checked this way.
const MaxRootBlocks = 4

// RootBlocks are the blocks (by hash) whose receipts and header the
// receipts-root check of result, an answer to a call of rule, needs: a
// receipt's block, the block of a block's receipts, the blocks of logs
// (nil: nothing to check, or logs of more than MaxRootBlocks blocks).
func RootBlocks(rule *methods.Rule, result json.RawMessage) []common.Hash {
	if rule == nil || len(result) == 0 || result[0] == 'n' {
		return nil
	}
	switch rule.Answer {
	case methods.AnswerReceipt:
		var r receiptFields
		if json.Unmarshal(result, &r) != nil || r.BlockHash == (common.Hash{}) {
			return nil
		}
		return []common.Hash{r.BlockHash}
	case methods.AnswerBlockReceipts, methods.AnswerLogs:
		var ls []struct {
			BlockHash *common.Hash `json:"blockHash"`
		}
		if json.Unmarshal(result, &ls) != nil {
			return nil
		}
		var out []common.Hash
		for _, l := range ls {
			if l.BlockHash != nil && !containsHash(out, *l.BlockHash) {
				if len(out) == MaxRootBlocks {
					return nil
				}
				out = append(out, *l.BlockHash)
			}
		}
		return out
	}
	return nil
}

func containsHash(list []common.Hash, h common.Hash) bool {
	for _, x := range list {
		if x == h {
			return true
		}
	}
	return false
}

// AgainstRoot checks result, an answer to a call of rule, against block
// hash's header (a block answer, its transactions as hashes) and receipts
// (an eth_getBlockReceipts answer; nil for a block-receipts answer, which
// is its own): the header hashes to hash, the receipts derive its
// receiptsRoot, and each receipt or log of result in that block is the
// one they hold. It returns a *Failure of CheckReceiptsRoot.
func AgainstRoot(rule *methods.Rule, result json.RawMessage, hash common.Hash, header, receipts json.RawMessage) error {
	var h types.Header
	if err := h.UnmarshalJSON(header); err != nil {
		return fail(CheckReceiptsRoot, "header of block %s does not decode: %v", hash, err)
	}
	if got := h.Hash(); got != hash {
		return fail(CheckReceiptsRoot, "header of block %s hashes to %s", hash, got)
	}
	if rule.Answer == methods.AnswerBlockReceipts {
		receipts = result
	}
	var rs types.Receipts
	if err := json.Unmarshal(receipts, &rs); err != nil {
		return fail(CheckReceiptsRoot, "receipts of block %s do not decode: %v", hash, err)
	}
	if got := types.DeriveSha(rs, trie.NewStackTrie(nil)); got != h.ReceiptHash {
		return fail(CheckReceiptsRoot, "block %d's receiptsRoot is %s, its %d receipts derive %s", h.Number.Uint64(), h.ReceiptHash, len(rs), got)
	}
	switch rule.Answer {
	case methods.AnswerReceipt:
		return receiptInRoot(result, rs)
	case methods.AnswerLogs:
		return logsInRoot(result, hash, rs)
	}
	return nil
}

// receiptInRoot checks a receipt answer against its block's receipts: the
// one at its index is of its transaction and encodes the same.
func receiptInRoot(result json.RawMessage, rs types.Receipts) error {
	var r types.Receipt
	if err := json.Unmarshal(result, &r); err != nil {
		return fail(CheckReceiptsRoot, "receipt does not decode: %v", err)
	}
	i := r.TransactionIndex
	if i >= uint(len(rs)) || rs[i].TxHash != r.TxHash {
		return fail(CheckReceiptsRoot, "receipt of %s at index %d is not in its block's receipts", r.TxHash, i)
	}
	got, err1 := r.MarshalBinary()
	want, err2 := rs[i].MarshalBinary()
	if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
		return fail(CheckReceiptsRoot, "receipt of %s differs from the one its block's receiptsRoot holds (status %d, want %d)", r.TxHash, r.Status, rs[i].Status)
	}
	return nil
}

// logsInRoot checks the logs of block hash in a logs answer: each is the
// log its block's receipts hold at its index.
func logsInRoot(result json.RawMessage, hash common.Hash, rs types.Receipts) error {
	var ls []*types.Log
	if err := json.Unmarshal(result, &ls); err != nil {
		return fail(CheckReceiptsRoot, "logs do not decode: %v", err)
	}
	byIndex := make(map[uint]*types.Log)
	for _, r := range rs {
		for _, l := range r.Logs {
			byIndex[l.Index] = l
		}
	}
	for _, l := range ls {
		if l.BlockHash != hash {
			continue
		}
		want, ok := byIndex[l.Index]
		if !ok || !sameLog(l, want) {
			return fail(CheckReceiptsRoot, "log %d of block %s differs from the one its receiptsRoot holds", l.Index, hash)
		}
	}
	return nil
}

// sameLog reports whether two logs say the same: emitter, topics, data
// and transaction.
func sameLog(a, b *types.Log) bool {
	if a.Address != b.Address || a.TxHash != b.TxHash || !bytes.Equal(a.Data, b.Data) || len(a.Topics) != len(b.Topics) {
		return false
	}
	for i := range a.Topics {
		if a.Topics[i] != b.Topics[i] {
			return false
		}
	}
	return true
}

// RootFetch names what the receipts-root check of one block fetches: the
// block's header (eth_getBlockByHash without transactions) and, unless
// the answer is a block's receipts, its receipts (eth_getBlockReceipts).
func RootFetch(rule *methods.Rule, hash common.Hash) (headerParams, receiptsParams string) {
	headerParams = fmt.Sprintf(`["%s",false]`, hash.Hex())
	if rule.Answer != methods.AnswerBlockReceipts {
		receiptsParams = fmt.Sprintf(`["%s"]`, hash.Hex())
	}
	return headerParams, receiptsParams
}
