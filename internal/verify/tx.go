package verify

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// txFields are the fields of a transaction answer that say where it is
// and who sent it. Its from and block hash are kept raw (their last copy)
// and read only by the checks that need them (sender, block): a lone
// transaction's identity check needs neither, and decoding them was a
// third of the verification's hex decoding.
type txFields struct {
	Hash                common.Hash
	from, blockHash     []byte // raw JSON values; nil: absent
	BlockNumber         uint64
	Index               uint64
	hasNumber, hasIndex bool
}

// sender is the from field, when it is a 20-byte hex string.
func (f txFields) sender() (common.Address, bool) {
	var a common.Address
	return a, f.from != nil && hexInto(f.from, a[:])
}

// block is the block hash, when it is a 32-byte hex string.
func (f txFields) block() (common.Hash, bool) {
	if f.blockHash == nil {
		return common.Hash{}, false
	}
	return hashOf(f.blockHash)
}

// readTxFields scans a transaction answer for its txFields.
func readTxFields(raw []byte) (txFields, error) {
	var f txFields
	var hasHash bool
	err := fields(raw, func(key, value []byte) {
		switch string(key) {
		case "hash":
			f.Hash, hasHash = hashOf(value)
		case "from":
			f.from = value
		case "blockHash":
			f.blockHash = value
		case "blockNumber":
			f.BlockNumber, f.hasNumber = quantityOf(value)
		case "transactionIndex":
			f.Index, f.hasIndex = quantityOf(value)
		}
	})
	if err == nil && !hasHash {
		err = errors.New("no hash")
	}
	return f, err
}

// transaction decodes a transaction answer and checks it is whole: its
// hash is the hash of its fields (TxHash) and its from is
// its signer (a failure named senderCheck; "": not checked). The transaction is nil when its type is one go-ethereum
// does not know (a rollup's deposit): only its fields are returned.
func transaction(c Checks, raw []byte, senderCheck string) (*types.Transaction, txFields, error) {
	f, err := readTxFields(raw)
	if err != nil {
		return nil, f, fail(CheckIdentity, "transaction is not a JSON transaction: %v", err)
	}
	if !c.TxHash && senderCheck == "" && !c.TransactionsRoot {
		return nil, f, nil
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalJSON(raw); err != nil {
		if errors.Is(err, types.ErrTxTypeNotSupported) {
			return nil, f, nil
		}
		return nil, f, fail(CheckTxHash, "transaction %s does not decode: %v", f.Hash, err)
	}
	if c.TxHash {
		if got := tx.Hash(); got != f.Hash {
			return nil, f, fail(CheckTxHash, "transaction says hash %s, its fields hash to %s", f.Hash, got)
		}
	}
	if from, ok := f.sender(); senderCheck != "" && ok {
		got, err := types.Sender(signerOf(tx), tx)
		if err != nil {
			return nil, f, fail(senderCheck, "transaction %s: signature does not recover: %v", f.Hash, err)
		}
		if got != from {
			return nil, f, fail(senderCheck, "transaction %s says from %s, its signer is %s", f.Hash, from, got)
		}
	}
	return tx, f, nil
}

// signerOf is the signer that recovers tx's sender: an unprotected legacy
// transaction's (no chain id), else the latest for its chain id.
func signerOf(tx *types.Transaction) types.Signer {
	if !tx.Protected() {
		return types.HomesteadSigner{}
	}
	return types.LatestSignerForChainID(tx.ChainId())
}

// inBlock checks that a transaction (or receipt) said to be in block
// asked (by hash or number) at index i is there; mined: it must be (a
// transaction of a block), else a pending one (no block) passes.
func (f txFields) inBlock(asked ref, number, i uint64, mined bool) error {
	blockHash, hasBlock := f.block()
	if !hasBlock || !f.hasNumber || !f.hasIndex { // not placed: pending, or no block named
		if mined {
			return fail(CheckIdentity, "transaction %s of block %d has no block or index", f.Hash, number)
		}
		return nil
	}
	switch {
	case asked.byHash && blockHash != asked.hash:
		return fail(CheckIdentity, "transaction %s is in block %s, asked block %s", f.Hash, blockHash, asked.hash)
	case asked.byNum && f.BlockNumber != asked.number:
		return fail(CheckIdentity, "transaction %s is in block %d, asked block %d", f.Hash, f.BlockNumber, asked.number)
	case mined && f.BlockNumber != number:
		return fail(CheckIdentity, "transaction %s says block %d, in block %d", f.Hash, f.BlockNumber, number)
	case f.Index != i:
		return fail(CheckIdentity, "transaction %s is at index %d, asked index %d", f.Hash, f.Index, i)
	}
	return nil
}

// txByHash checks a transaction answer to a call naming its hash.
func txByHash(c Checks, asked ref, result []byte) error {
	_, f, err := transaction(alone(c), result, senderCheck(c.TxSender, CheckTxSender))
	if err != nil {
		return err
	}
	if c.Identity && asked.byHash && f.Hash != asked.hash {
		return fail(CheckIdentity, "asked transaction %s, answered %s", asked.hash, f.Hash)
	}
	return nil
}

// txInBlock checks a transaction answer to a call naming its block and
// index (ok: the index param was read).
func txInBlock(c Checks, asked ref, i uint64, ok bool, result []byte) error {
	if asked.pending {
		return nil
	}
	_, f, err := transaction(alone(c), result, senderCheck(c.TxSender, CheckTxSender))
	if err != nil || !c.Identity || !ok {
		return err
	}
	return f.inBlock(asked, f.BlockNumber, i, false) // a pending one (no block) passes
}

// alone is c for a transaction answered alone: TransactionsRoot is a
// block's check, so it does not make a lone transaction be decoded whole
// (with TxHash and TxSender off, only its identity is read, by scanning).
func alone(c Checks) Checks {
	c.TransactionsRoot = false
	return c
}

// senderCheck is name when on, else "" (no sender check).
func senderCheck(on bool, name string) string {
	if on {
		return name
	}
	return ""
}
