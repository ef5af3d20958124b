package devnet

import (
	"encoding/json"
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
	// stateDiff is its state diff's length: one nonce update per sender
	// (the devnet keeps no other state).
	stateDiff int
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
	senders := map[[32]byte]bool{}
	for _, tx := range txs {
		h.Add(tx.hash)
		size += tx.size()
		if tx.nonced {
			senders[tx.sender.Bytes()] = true
		}
	}
	return &block{number: number, hash: h.Sum(), parent: parent, timestamp: ts, txs: txs, bytes: size, stateDiff: len(senders)}
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

// appendTxs appends the transactions as a JSON array; next is the number
// of the block being built (for the receipts of pending transactions).
func appendTxs(buf []byte, s *spec, txs []*storedTx, style txStyle, next uint64) []byte {
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
			buf = tx.appendReceipt(buf, s, false, next)
			buf = append(buf, '}')
		default:
			buf = append(buf, tx.json...)
		}
	}
	return append(buf, ']')
}

// appendJSON writes a block of the version (BLOCK_HEADER, status and the
// transactions in the given style).
func (b *block) appendJSON(buf []byte, s *spec, style txStyle) []byte {
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
	buf = appendHeaderPrices(buf, s)
	if s.preConfirmed {
		// The commitments of 0.9 and later: the devnet computes none
		// (the spec's 0x0, "not available"); the counts are its own.
		buf = append(buf, `,"event_commitment":"0x0","transaction_commitment":"0x0","receipt_commitment":"0x0","state_diff_commitment":"0x0","event_count":0,"transaction_count":`...)
		buf = strconv.AppendInt(buf, int64(len(b.txs)), 10)
		buf = append(buf, `,"state_diff_length":`...)
		buf = strconv.AppendInt(buf, int64(b.stateDiff), 10)
	}
	buf = append(buf, `,"transactions":`...)
	buf = appendTxs(buf, s, b.txs, style, 0)
	return append(buf, '}')
}

// appendPendingJSON writes the block being built from the pool: 0.8's
// PENDING_BLOCK_HEADER (with parent_hash) or the PRE_CONFIRMED_BLOCK_HEADER
// of 0.9 and later (with its block_number), and the transactions in the
// given style.
func appendPendingJSON(buf []byte, s *spec, parent *block, ts uint64, txs []*storedTx, style txStyle) []byte {
	next := parent.number + 1
	buf = append(buf, `{"transactions":`...)
	buf = appendTxs(buf, s, txs, style, next)
	if s.preConfirmed {
		buf = append(buf, `,"block_number":`...)
		buf = strconv.AppendUint(buf, next, 10)
	}
	buf = append(buf, `,"timestamp":`...)
	buf = strconv.AppendUint(buf, ts, 10)
	buf = append(buf, `,"sequencer_address":`...)
	buf = sequencerAddress.AppendQuoted(buf)
	if !s.preConfirmed {
		buf = append(buf, `,"parent_hash":`...)
		buf = parent.hash.AppendQuoted(buf)
	}
	buf = appendHeaderPrices(buf, s)
	return append(buf, '}')
}

// blockID is a parsed BLOCK_ID: a tag, a number or a hash.
type blockID struct {
	tag    string // "latest", "pending" (the block being built) or "l1_accepted"; empty for number or hash
	number uint64
	hasNum bool
	hash   starknet.Felt
}

// parseBlockSelector reads a BLOCK_ID that is not a tag: a number or a
// hash. errf makes the error for anything else, given what to append.
func parseBlockSelector(raw json.RawMessage, errf func(got string) error) (blockID, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return blockID{}, errf("; got " + starknet.JSONKind(raw))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) != 1 {
		return blockID{}, errf("")
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
	return blockID{}, errf("")
}

// findLocked resolves a block id other than pending; nil when not kept
// (and for l1_accepted: the devnet has no L1).
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
	case id.tag == "l1_accepted":
		return -1
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
