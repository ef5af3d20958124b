package devnet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nodegate/nodegate/internal/starknet"
)

// block is a sealed devnet block.
type block struct {
	number    uint64
	hash      starknet.Felt
	parent    starknet.Felt
	timestamp uint64
	txs       []*storedTx
	bytes     int // what its transactions take (storedTx.size)
}

// newBlock makes a block. Its hash is a devnet hash, h(number, parent_hash,
// timestamp, transaction hashes...): unique and checkable, but not
// Starknet's block hash, which commits to state the devnet does not keep.
func newBlock(number uint64, parent starknet.Felt, ts uint64, txs []*storedTx) *block {
	var h starknet.HashChain
	h.Add(starknet.FeltFromUint64(number))
	h.Add(parent)
	h.Add(starknet.FeltFromUint64(ts))
	size := 0
	for _, tx := range txs {
		h.Add(tx.hash)
		size += tx.size()
	}
	return &block{number: number, hash: h.Sum(), parent: parent, timestamp: ts, txs: txs, bytes: size}
}

// sequencerAddress is the devnet's sequencer: there is none, so 0x0.
var sequencerAddress = starknet.FeltFromUint64(0)

// txStyle is how a block lists its transactions: whole (getBlockWithTxs),
// by hash (getBlockWithTxHashes) or with receipts (getBlockWithReceipts).
type txStyle int

const (
	txsWhole txStyle = iota
	txsHashes
	txsWithReceipts
)

// appendTxs appends the transactions as a JSON array.
func appendTxs(buf []byte, txs []*storedTx, style txStyle) []byte {
	buf = append(buf, '[')
	for i, tx := range txs {
		if i > 0 {
			buf = append(buf, ',')
		}
		switch style {
		case txsHashes:
			buf = tx.hash.AppendQuoted(buf)
		case txsWithReceipts:
			buf = append(buf, `{"transaction":`...)
			buf = append(buf, tx.json...)
			buf = append(buf, `,"receipt":`...)
			buf = tx.appendReceipt(buf, false)
			buf = append(buf, '}')
		default:
			buf = append(buf, tx.json...)
		}
	}
	return append(buf, ']')
}

// appendJSON writes a block of Starknet JSON-RPC 0.8 (BLOCK_HEADER, status
// and the transactions in the given style).
func (b *block) appendJSON(buf []byte, style txStyle) []byte {
	buf = append(buf, `{"status":"ACCEPTED_ON_L2","block_hash":`...)
	buf = b.hash.AppendQuoted(buf)
	buf = append(buf, `,"parent_hash":`...)
	buf = b.parent.AppendQuoted(buf)
	buf = append(buf, `,"block_number":`...)
	buf = strconv.AppendUint(buf, b.number, 10)
	buf = append(buf, `,"new_root":"0x0","timestamp":`...)
	buf = strconv.AppendUint(buf, b.timestamp, 10)
	buf = append(buf, `,"sequencer_address":`...)
	buf = sequencerAddress.AppendQuoted(buf)
	buf = appendHeaderPrices(buf)
	buf = append(buf, `,"transactions":`...)
	buf = appendTxs(buf, b.txs, style)
	return append(buf, '}')
}

// appendPendingJSON writes the pending block of Starknet JSON-RPC 0.8
// (PENDING_BLOCK_HEADER and the transactions in the given style).
func appendPendingJSON(buf []byte, parent *block, ts uint64, txs []*storedTx, style txStyle) []byte {
	buf = append(buf, `{"transactions":`...)
	buf = appendTxs(buf, txs, style)
	buf = append(buf, `,"timestamp":`...)
	buf = strconv.AppendUint(buf, ts, 10)
	buf = append(buf, `,"sequencer_address":`...)
	buf = sequencerAddress.AppendQuoted(buf)
	buf = append(buf, `,"parent_hash":`...)
	buf = parent.hash.AppendQuoted(buf)
	buf = appendHeaderPrices(buf)
	return append(buf, '}')
}

// blockID is a parsed BLOCK_ID: a tag, a number or a hash.
type blockID struct {
	tag    string // "latest" or "pending"; empty for number or hash
	number uint64
	hasNum bool
	hash   starknet.Felt
}

var errBlockID = errors.New(`block_id must be "latest", "pending", {"block_number": n} or {"block_hash": "0x..."}`)

func parseBlockID(raw json.RawMessage) (blockID, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var tag string
		if err := json.Unmarshal(raw, &tag); err != nil {
			return blockID{}, errBlockID
		}
		if tag != "latest" && tag != "pending" {
			return blockID{}, fmt.Errorf("%w; got %q", errBlockID, starknet.Clip(tag))
		}
		return blockID{tag: tag}, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return blockID{}, fmt.Errorf("%w; got %s", errBlockID, starknet.JSONKind(raw))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) != 1 {
		return blockID{}, errBlockID
	}
	if n, ok := obj["block_number"]; ok {
		var v uint64
		if err := json.Unmarshal(n, &v); err != nil {
			return blockID{}, fmt.Errorf("block_id.block_number must be a non-negative integer, got %s", starknet.Clip(string(n)))
		}
		return blockID{number: v, hasNum: true}, nil
	}
	if h, ok := obj["block_hash"]; ok {
		var f starknet.Felt
		if err := f.UnmarshalJSON(h); err != nil {
			return blockID{}, fmt.Errorf("block_id.block_hash: %w", err)
		}
		return blockID{hash: f}, nil
	}
	return blockID{}, errBlockID
}

// findLocked resolves a block id other than pending; nil when not kept.
func (d *Devnet) findLocked(id blockID) *block {
	if i := d.indexLocked(id); i >= 0 {
		return d.blocks[i]
	}
	return nil
}

// indexLocked is the index in d.blocks of a block id other than pending;
// -1 when not kept.
func (d *Devnet) indexLocked(id blockID) int {
	switch {
	case id.tag == "latest":
		return len(d.blocks) - 1
	case id.hasNum:
		first := d.blocks[0].number
		if id.number < first || id.number-first >= uint64(len(d.blocks)) {
			return -1
		}
		return int(id.number - first)
	default:
		for i, b := range d.blocks {
			if b.hash.Equal(id.hash) {
				return i
			}
		}
		return -1
	}
}
