package devnet

import (
	"fmt"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// What a client can make the devnet keep is bounded in bytes, not only in
// transactions: a transaction's calldata, paymaster data and account
// deployment data may each hold thousands of felts (about 0.8 MB in one
// transaction), so a count alone (MaxPending, KeepBlocks) lets a client
// fill memory.
const (
	// DefaultMaxPendingBytes bounds the pending pool's transactions.
	DefaultMaxPendingBytes = 32 << 20
	// DefaultKeepBytes bounds the kept blocks' transactions: the oldest
	// blocks are dropped past it, as past KeepBlocks.
	DefaultKeepBytes = 128 << 20
	// DefaultMaxAccounts bounds the senders whose nonces the devnet keeps
	// (about 200 bytes each): they outlive the blocks.
	DefaultMaxAccounts = 100_000
)

// txOverhead is what a kept transaction costs besides its JSON: its
// storedTx, its place in the hash index and in its block.
const txOverhead = 256

// size is what keeping tx costs, in bytes.
func (tx *storedTx) size() int { return len(tx.json) + txOverhead }

// admitLocked refuses tx when the pending pool has no room for it, in
// transactions or in bytes, or when it is from a new sender and the
// devnet keeps as many as it may.
func (d *Devnet) admitLocked(tx *storedTx) *jsonrpc.Error {
	return d.roomLocked(tx.size(), tx.nonced, tx.sender)
}

// roomLocked is admitLocked's rule for a transaction of size bytes
// (from sender when nonced).
func (d *Devnet) roomLocked(size int, nonced bool, sender starknet.Felt) *jsonrpc.Error {
	if len(d.pending) >= d.cfg.MaxPending {
		return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("devnet pending pool is full (%d transactions); call devnet_createBlock", d.cfg.MaxPending))
	}
	if d.pendingBytes+size > d.cfg.MaxPendingBytes {
		return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("devnet pending pool is full (%d of its %d bytes used, this transaction needs %d); call devnet_createBlock",
			d.pendingBytes, d.cfg.MaxPendingBytes, size))
	}
	if nonced && !d.nonces.known(sender) && d.nonces.accounts() >= d.cfg.MaxAccounts {
		return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("devnet keeps the nonces of at most %d accounts; send from an account it knows, or restart it", d.cfg.MaxAccounts))
	}
	return nil
}

// Hashing a transaction costs CPU in proportion to its felts (thousands
// in one transaction), so a transaction is refused before it is hashed
// when what it is at least refuses it: a pool without room for its
// smallest encoding (minStoredBytesPerFelt a felt), a new sender past
// MaxAccounts. What needs the hash (a duplicate, answered before a wrong
// nonce), the nonce and the exact size are checked once it is hashed.
const minStoredBytesPerFelt = len(`"0x0",`)

// precheck refuses tx on what it is at least, before it is hashed.
func (d *Devnet) precheck(tx *starknet.Invoke) *jsonrpc.Error {
	size := txOverhead + minStoredBytesPerFelt*feltsOf(tx)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.roomLocked(size, tx.Version > 0, tx.SenderAddress)
}

// keepFrom is the index of the oldest block to keep: at most KeepBlocks
// blocks, whose transactions take at most KeepBytes (the newest block is
// always kept).
func (d *Devnet) keepFrom() int {
	from := max(0, len(d.blocks)-d.cfg.KeepBlocks)
	kept := 0
	for _, b := range d.blocks[from:] {
		kept += b.bytes
	}
	for ; from < len(d.blocks)-1 && kept > d.cfg.KeepBytes; from++ {
		kept -= d.blocks[from].bytes
	}
	return from
}
