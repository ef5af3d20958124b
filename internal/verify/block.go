package verify

import (
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// blockFields are the fields of a block answer besides its header.
type blockFields struct {
	Hash         *common.Hash      `json:"hash"`
	Number       *hexutil.Uint64   `json:"number"`
	Transactions []json.RawMessage `json:"transactions"`
}

// block checks a block (or header) answer to a call naming asked; full:
// its transactions were asked in full.
func block(c Checks, asked ref, full bool, result []byte) error {
	if asked.pending {
		return nil // a pending block is not a mined block
	}
	var b blockFields
	if err := json.Unmarshal(result, &b); err != nil {
		return fail(CheckIdentity, "block is not a JSON block: %v", err)
	}
	if b.Hash == nil || b.Number == nil {
		return nil // no hash: not a mined block (a pending block asked by its tag)
	}
	if c.Identity {
		if asked.byNum && uint64(*b.Number) != asked.number {
			return fail(CheckIdentity, "asked block %d, answered block %d", asked.number, uint64(*b.Number))
		}
		if asked.byHash && *b.Hash != asked.hash {
			return fail(CheckIdentity, "asked block %s, answered block %s", asked.hash, *b.Hash)
		}
	}
	var h types.Header
	if c.BlockHash || c.TransactionsRoot {
		if err := h.UnmarshalJSON(result); err != nil {
			return fail(CheckBlockHash, "block header does not decode: %v", err)
		}
	}
	if c.BlockHash {
		if got := h.Hash(); got != *b.Hash {
			return fail(CheckBlockHash, "block %d says hash %s, its header hashes to %s", uint64(*b.Number), *b.Hash, got)
		}
		if uint64(*b.Number) != h.Number.Uint64() {
			return fail(CheckBlockHash, "block number %d differs from its header's %d", uint64(*b.Number), h.Number.Uint64())
		}
	}
	if !full || len(b.Transactions) == 0 && !c.TransactionsRoot {
		return nil
	}
	return blockTxs(c, *b.Hash, uint64(*b.Number), h.TxHash, b.Transactions)
}

// blockTxs checks the full transactions of block hash/number whose
// header has txRoot: each is in that block at its index and whole, and
// together they have that root.
func blockTxs(c Checks, hash common.Hash, number uint64, txRoot common.Hash, raws []json.RawMessage) error {
	txs := make(types.Transactions, 0, len(raws))
	known := true // every transaction's type is one go-ethereum knows
	for i, raw := range raws {
		if len(raw) > 0 && raw[0] == '"' {
			return nil // hashes, not transactions: nothing to derive a root from
		}
		tx, f, err := transaction(c, raw, senderCheck(c.BlockSenders, CheckBlockSenders))
		if err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
		if c.Identity {
			if err := f.inBlock(ref{hash: hash, byHash: true}, number, uint64(i), true); err != nil {
				return err
			}
		}
		if tx == nil {
			known = false
			continue
		}
		txs = append(txs, tx)
	}
	if c.TransactionsRoot && known {
		if got := types.DeriveSha(txs, trie.NewStackTrie(nil)); got != txRoot {
			return fail(CheckTransactionsRoot, "block %d's transactionsRoot is %s, its %d transactions derive %s", number, txRoot, len(txs), got)
		}
	}
	return nil
}
