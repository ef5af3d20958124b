package evmnode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/core"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The embedded node keeps its whole chain in memory, as an archive: every
// block, receipt and state since genesis (or since the import), the
// transaction index and the preimages of the dev chain. Nothing is pruned,
// so that every block's state answers; instead, what its blocks hold is
// counted (a transaction's bytes from the moment it is sent, its state once
// it is sealed), and once it passes Config.MaxChainBytes the node takes no more
// transactions: eth_sendRawTransaction and eth_sendRawTransactionSync
// answer -32005 saying so, while every read keeps working. A restart
// starts a new dev chain.

// DefaultMaxChainBytes is Config.MaxChainBytes's default: at the ratio
// measured with blocks of large calldata (8 bytes of process memory per
// byte counted, TestDevChainFloodMemory), about 500 MB of memory; some
// 30,000 plain transfers.
const DefaultMaxChainBytes = 64 << 20

// State is estimated from gas: gas prices what a transaction writes
// (20,000 for a new storage slot, 200 per byte of code), about a byte per
// stateBytesPerGas gas once the trie nodes of each written path are
// counted, besides the stateBytesPerTx every transaction rewrites (its
// sender's and recipient's trie paths). The gas a transaction pays for
// its calldata (at most calldataGasPerByte a byte) writes no state.
const (
	stateBytesPerGas   = 8
	stateBytesPerTx    = 2048
	calldataGasPerByte = 40
	txGas              = 21000
)

// chainSize counts what the chain's blocks make the node keep (used) and
// what the transactions it took and has not sealed yet will (reserved).
// A write reserves its transaction's bytes before the node sees it, so
// that writes arriving faster than blocks are sealed cannot pass the
// budget between two blocks; a refused write gives them back, a sealed
// block moves its transactions' bytes from reserved to used.
type chainSize struct {
	used     atomic.Int64
	reserved atomic.Int64
	max      int64
}

// txBytes is what one transaction of size bytes makes the node keep,
// besides the state it writes (counted from gas once it is sealed).
func txBytes(size int64) int64 { return size + 64 + stateBytesPerTx }

// reserve takes n bytes for a transaction about to be sent; false when
// that would pass the budget (nothing is then taken).
func (c *chainSize) reserve(n int64) bool {
	if c.max <= 0 {
		return true
	}
	if c.used.Load()+c.reserved.Add(n) > c.max {
		c.reserved.Add(-n)
		return false
	}
	return true
}

// release gives back n reserved bytes, never below zero (a transaction
// sealed that was not reserved: one sent to `nodegate node`'s own
// listener).
func (c *chainSize) release(n int64) {
	for {
		r := c.reserved.Load()
		if c.reserved.CompareAndSwap(r, max(r-n, 0)) {
			return
		}
	}
}

// blockBytes is what one block makes the node keep: its header and
// transactions (and their index entries), its receipts' logs, and an
// estimate of the state it wrote.
func blockBytes(ev core.ChainEvent) int64 {
	size := int64(ev.Header.Size())
	intrinsic := uint64(0)
	for _, tx := range ev.Transactions {
		size += txBytes(int64(tx.Size()))
		intrinsic += txGas + calldataGasPerByte*uint64(len(tx.Data()))
	}
	if ev.Header.GasUsed > intrinsic {
		size += int64((ev.Header.GasUsed - intrinsic) / stateBytesPerGas)
	}
	for _, r := range ev.Receipts {
		size += 64
		for _, l := range r.Logs {
			size += int64(len(l.Data)) + 32*int64(len(l.Topics)) + 64
		}
	}
	return size
}

// countBlocks adds every new block's bytes until stop is closed.
func (n *Node) countBlocks(stop <-chan struct{}) {
	events := make(chan core.ChainEvent, 64)
	sub := n.eth.BlockChain().SubscribeChainEvent(events)
	defer sub.Unsubscribe()
	for {
		select {
		case ev := <-events:
			var sealed int64
			for _, tx := range ev.Transactions {
				sealed += txBytes(int64(tx.Size()))
			}
			n.size.used.Add(blockBytes(ev))
			n.size.release(sealed)
		case <-sub.Err():
			return
		case <-stop:
			return
		}
	}
}

// ChainBytes is what the node's blocks hold since it started, as counted
// against Config.MaxChainBytes.
func (n *Node) ChainBytes() int64 { return n.size.used.Load() }

var sendMethod = []byte(`"eth_sendRawTransaction`)

// budgetWrites serves body when it sends a transaction, under the chain's
// budget: each write reserves its transaction's bytes first and answers
// -32005 when they do not fit; the other calls of a batch that holds a
// write are served one by one. ok is false when body sends no transaction
// (or there is no budget) and is to be served as it is.
func (n *Node) budgetWrites(account string, body []byte, serve func([]byte) ([]byte, error)) (out []byte, ok bool, err error) {
	if (n.size.max <= 0 && n.shares.max <= 0) || !bytes.Contains(body, sendMethod) {
		return nil, false, nil
	}
	if !jsonrpc.IsBatch(body) {
		w, ok := writeOf(body)
		if !ok {
			return nil, false, nil
		}
		out, err = n.budgetWrite(nil, account, body, w, serve)
		return out, true, err
	}
	buf := []byte{'['}
	elemErr := jsonrpc.Elements(body, func(elem []byte) bool {
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		if w, ok := writeOf(elem); ok {
			buf, err = n.budgetWrite(buf, account, elem, w, serve)
			return err == nil
		}
		var answer []byte
		if answer, err = serve(elem); err != nil {
			return false
		}
		buf = append(buf, bytes.TrimSpace(answer)...)
		return true
	})
	if elemErr != nil {
		return nil, false, nil // the node answers it
	}
	if err != nil {
		return nil, true, err
	}
	return append(buf, ']'), true, nil
}

// budgetWrite appends the answer to one write of account, w of req:
// refused when its charge passes the account's share (chainshare.go) or
// its transaction does not fit the chain's budget, else served, its
// reservation and charge given back unless the node took the transaction.
func (n *Node) budgetWrite(buf []byte, account string, req []byte, w write, serve func([]byte) ([]byte, error)) ([]byte, error) {
	charge := writeCharge(w.raw)
	if !n.shares.take(account, charge) {
		return n.shareUsed(buf, w.id, account), nil
	}
	need := txBytes(int64(len(w.raw) / 2))
	if !n.size.reserve(need) {
		n.shares.giveBack(account, charge)
		return n.chainFull(buf, w.id), nil
	}
	answer, err := serve(req)
	if err != nil || !bytes.Contains(answer, []byte(`"result"`)) {
		n.size.release(need)
		n.shares.giveBack(account, charge)
	}
	if err != nil {
		return nil, err
	}
	return append(buf, bytes.TrimSpace(answer)...), nil
}

// write is one request that sends a transaction: its id, and the
// transaction in hex without its 0x (empty when the parameter is not a
// string, which the node refuses).
type write struct {
	id  json.RawMessage
	raw []byte
}

// writeOf reads req once: whether it sends a transaction, and what of it
// the budget needs.
func writeOf(req []byte) (w write, ok bool) {
	msgs, _, err := jsonrpc.Parse(req, 1)
	if err != nil || len(msgs) != 1 || msgs[0].Err != nil {
		return write{}, false
	}
	r := msgs[0].Req
	if r.Method != "eth_sendRawTransaction" && r.Method != "eth_sendRawTransactionSync" {
		return write{}, false
	}
	w.id = r.ID
	if tx := jsonrpc.Element(r.Params, 0); len(tx) >= 2 && tx[0] == '"' {
		w.raw = bytes.TrimPrefix(tx[1:len(tx)-1], []byte("0x"))
	}
	return w, true
}

// chainFull appends the answer of a full chain to the write with id.
func (n *Node) chainFull(buf []byte, id json.RawMessage) []byte {
	full := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"the embedded node's chain is full (%d MiB of blocks, node.max_chain_bytes %d MiB): it takes no more transactions; restart nodegate for a new dev chain, or raise node.max_chain_bytes",
		(n.size.used.Load()+n.size.reserved.Load())>>20, n.size.max>>20))
	return jsonrpc.AppendResponse(buf, id, jsonrpc.ErrorResponse(full))
}

// shareUsed appends the answer to the write with id of an account whose
// writes have used its share of the chain.
func (n *Node) shareUsed(buf []byte, id json.RawMessage, account string) []byte {
	used := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"this API key's account has used its share of the embedded node's chain (%d KiB of node.max_chain_bytes_per_account %d KiB, of node.max_chain_bytes %d MiB for every account): it takes no more of its transactions, while other accounts' go on; restart nodegate for a new dev chain, or raise node.max_chain_bytes_per_account",
		n.shares.chargedTo(account)>>10, n.shares.max>>10, n.size.max>>20))
	return jsonrpc.AppendResponse(buf, id, jsonrpc.ErrorResponse(used))
}
