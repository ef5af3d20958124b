package evmnode

import (
	"bytes"
	"fmt"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/core"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The embedded node keeps its whole chain in memory, as an archive: every
// block, receipt and state since genesis (or since the import), the
// transaction index and the preimages of the dev chain. Nothing is pruned,
// so that every block's state answers; instead, what its blocks hold is
// counted, and once it passes Config.MaxChainBytes the node takes no more
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

// chainSize counts what the chain's blocks make the node keep.
type chainSize struct {
	used atomic.Int64
	max  int64
}

// blockBytes is what one block makes the node keep: its header and
// transactions (and their index entries), its receipts' logs, and an
// estimate of the state it wrote.
func blockBytes(ev core.ChainEvent) int64 {
	size := int64(ev.Header.Size())
	intrinsic := uint64(0)
	for _, tx := range ev.Transactions {
		size += int64(tx.Size()) + 64 + stateBytesPerTx
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
			n.size.used.Add(blockBytes(ev))
		case <-sub.Err():
			return
		case <-stop:
			return
		}
	}
}

// full reports whether the chain passed its budget.
func (c *chainSize) full() bool { return c.max > 0 && c.used.Load() > c.max }

// ChainBytes is what the node's blocks hold since it started, as counted
// against Config.MaxChainBytes.
func (n *Node) ChainBytes() int64 { return n.size.used.Load() }

var sendMethod = []byte(`"eth_sendRawTransaction`)

// refuseWrites answers body when the chain is full and body sends a
// transaction: each such call answers -32005, the other calls of a batch
// are served one by one. ok is false when body is to be served as it is.
func (n *Node) refuseWrites(body []byte, serve func([]byte) ([]byte, error)) (out []byte, ok bool, err error) {
	if !n.size.full() || !bytes.Contains(body, sendMethod) {
		return nil, false, nil
	}
	if !jsonrpc.IsBatch(body) {
		if !isWrite(body) {
			return nil, false, nil
		}
		return n.chainFull(nil, body), true, nil
	}
	buf := []byte{'['}
	elemErr := jsonrpc.Elements(body, func(elem []byte) bool {
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		if isWrite(elem) {
			buf = n.chainFull(buf, elem)
			return true
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

// isWrite reports whether one request sends a transaction.
func isWrite(req []byte) bool {
	msgs, _, err := jsonrpc.Parse(req, 1)
	if err != nil || len(msgs) != 1 || msgs[0].Err != nil {
		return false
	}
	m := msgs[0].Req.Method
	return m == "eth_sendRawTransaction" || m == "eth_sendRawTransactionSync"
}

// chainFull appends the answer to the write req of a full chain.
func (n *Node) chainFull(buf, req []byte) []byte {
	msgs, _, _ := jsonrpc.Parse(req, 1)
	full := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"the embedded node's chain is full (%d MiB of blocks, node.max_chain_bytes %d MiB): it takes no more transactions; restart nodegate for a new dev chain, or raise node.max_chain_bytes",
		n.size.used.Load()>>20, n.size.max>>20))
	return jsonrpc.AppendResponse(buf, msgs[0].Req.ID, jsonrpc.ErrorResponse(full))
}
