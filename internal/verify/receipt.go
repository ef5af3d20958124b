package verify

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// receiptFields are the fields of a receipt that say what it is of.
type receiptFields struct {
	TxHash      common.Hash    `json:"transactionHash"`
	BlockHash   common.Hash    `json:"blockHash"`
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	Index       hexutil.Uint64 `json:"transactionIndex"`
	Logs        []logFields    `json:"logs"`
}

// logFields are the fields of a log that say where it is.
type logFields struct {
	BlockHash   *common.Hash    `json:"blockHash"`
	BlockNumber *hexutil.Uint64 `json:"blockNumber"`
	TxHash      *common.Hash    `json:"transactionHash"`
	TxIndex     *hexutil.Uint64 `json:"transactionIndex"`
	Index       *hexutil.Uint64 `json:"logIndex"`
}

// receipt checks a receipt answer to a call naming its transaction's hash.
func receipt(c Checks, asked ref, result []byte) error {
	if !c.Identity {
		return nil
	}
	var r receiptFields
	if err := json.Unmarshal(result, &r); err != nil {
		return fail(CheckIdentity, "receipt is not a JSON receipt: %v", err)
	}
	if asked.byHash && r.TxHash != asked.hash {
		return fail(CheckIdentity, "asked the receipt of %s, answered that of %s", asked.hash, r.TxHash)
	}
	return r.logsAgree()
}

// logsAgree checks that each of a receipt's logs is of its transaction
// and block.
func (r *receiptFields) logsAgree() error {
	for i, l := range r.Logs {
		switch {
		case l.BlockHash == nil || *l.BlockHash != r.BlockHash:
			return fail(CheckIdentity, "receipt of %s in block %s has log %d of another block", r.TxHash, r.BlockHash, i)
		case l.BlockNumber == nil || *l.BlockNumber != r.BlockNumber:
			return fail(CheckIdentity, "receipt of %s in block %d has log %d of another block number", r.TxHash, uint64(r.BlockNumber), i)
		case l.TxHash == nil || *l.TxHash != r.TxHash:
			return fail(CheckIdentity, "receipt of %s has log %d of another transaction", r.TxHash, i)
		case l.TxIndex == nil || *l.TxIndex != r.Index:
			return fail(CheckIdentity, "receipt of %s at index %d has log %d at another index", r.TxHash, uint64(r.Index), i)
		}
	}
	return nil
}

// blockReceipts checks the receipts of a block answer (eth_getBlockReceipts)
// to a call naming asked: each of that block, at its index, with its logs.
func blockReceipts(c Checks, asked ref, result []byte) error {
	if !c.Identity || asked.pending {
		return nil
	}
	var rs []receiptFields
	if err := json.Unmarshal(result, &rs); err != nil {
		return fail(CheckIdentity, "block receipts are not JSON receipts: %v", err)
	}
	for i := range rs {
		r := &rs[i]
		switch {
		case asked.byHash && r.BlockHash != asked.hash:
			return fail(CheckIdentity, "asked the receipts of block %s, receipt %d is of block %s", asked.hash, i, r.BlockHash)
		case asked.byNum && uint64(r.BlockNumber) != asked.number:
			return fail(CheckIdentity, "asked the receipts of block %d, receipt %d is of block %d", asked.number, i, uint64(r.BlockNumber))
		case r.BlockHash != rs[0].BlockHash:
			return fail(CheckIdentity, "receipt %d is of block %s, receipt 0 of block %s", i, r.BlockHash, rs[0].BlockHash)
		case uint64(r.Index) != uint64(i):
			return fail(CheckIdentity, "receipt %d says index %d", i, uint64(r.Index))
		}
		if err := r.logsAgree(); err != nil {
			return err
		}
	}
	return nil
}
