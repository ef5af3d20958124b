package verify

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/nodegate/nodegate/jsonrpc"
)

// blockFields are the fields of a block answer besides its header:
// its hash and number (has: both present) and its transactions, raw.
type blockFields struct {
	Hash         common.Hash
	Number       uint64
	has          bool
	Transactions []byte
}

// readBlockFields scans a block answer for its blockFields.
func readBlockFields(raw []byte) (blockFields, error) {
	var b blockFields
	var hasHash, hasNumber bool
	err := fields(raw, func(key, value []byte) {
		switch string(key) {
		case "hash":
			b.Hash, hasHash = hashOf(value)
		case "number":
			b.Number, hasNumber = quantityOf(value)
		case "transactions":
			b.Transactions = value
		}
	})
	b.has = hasHash && hasNumber
	return b, err
}

// block checks a block (or header) answer to a call naming asked; full:
// its transactions were asked in full.
func block(c Checks, asked ref, full bool, result []byte) error {
	if asked.pending {
		return nil // a pending block is not a mined block
	}
	b, err := readBlockFields(result)
	if err != nil {
		return fail(CheckIdentity, "block is not a JSON block: %v", err)
	}
	if !b.has {
		return nil // no hash: not a mined block (a pending block asked by its tag)
	}
	if c.Identity {
		if asked.byNum && b.Number != asked.number {
			return fail(CheckIdentity, "asked block %d, answered block %d", asked.number, b.Number)
		}
		if asked.byHash && b.Hash != asked.hash {
			return fail(CheckIdentity, "asked block %s, answered block %s", asked.hash, b.Hash)
		}
	}
	var h types.Header
	if c.BlockHash || c.TransactionsRoot {
		if err := h.UnmarshalJSON(result); err != nil {
			return fail(CheckBlockHash, "block header does not decode: %v", err)
		}
	}
	if c.BlockHash {
		if got := h.Hash(); got != b.Hash {
			return fail(CheckBlockHash, "block %d says hash %s, its header hashes to %s", b.Number, b.Hash, got)
		}
		if b.Number != h.Number.Uint64() {
			return fail(CheckBlockHash, "block number %d differs from its header's %d", b.Number, h.Number.Uint64())
		}
	}
	if !full || len(b.Transactions) == 0 || b.Transactions[0] != '[' {
		return nil
	}
	return blockTxs(c, b.Hash, b.Number, h.TxHash, b.Transactions)
}

// blockTxs checks the full transactions of block hash/number whose
// header has txRoot: each is in that block at its index and whole, and
// together they have that root.
func blockTxs(c Checks, hash common.Hash, number uint64, txRoot common.Hash, list []byte) error {
	var (
		txs    types.Transactions
		known  = true // every transaction's type is one go-ethereum knows
		hashes bool   // the list holds hashes, not transactions
		failed error
		i      uint64
	)
	err := jsonrpc.Elements(list, func(raw []byte) bool {
		if len(raw) > 0 && raw[0] == '"' {
			hashes = true
			return false
		}
		tx, f, err := transaction(c, raw, senderCheck(c.BlockSenders, CheckBlockSenders))
		if err != nil {
			failed = fmt.Errorf("transaction %d: %w", i, err)
			return false
		}
		if c.Identity {
			if failed = f.inBlock(ref{hash: hash, byHash: true}, number, i, true); failed != nil {
				return false
			}
		}
		i++
		if tx == nil {
			known = false
			return true
		}
		txs = append(txs, tx)
		return true
	})
	switch {
	case failed != nil:
		return failed
	case err != nil:
		return fail(CheckIdentity, "block %d's transactions are not a JSON list: %v", number, err)
	case hashes:
		return nil // hashes, not transactions: nothing to derive a root from
	}
	if c.TransactionsRoot && known {
		if got := types.DeriveSha(txs, trie.NewStackTrie(nil)); got != txRoot {
			return fail(CheckTransactionsRoot, "block %d's transactionsRoot is %s, its %d transactions derive %s", number, txRoot, len(txs), got)
		}
	}
	return nil
}
