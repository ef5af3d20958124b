package bench

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The static upstream's chain: real signed transactions and real block
// headers, so that a gateway checking answers (hashes, signers, what was
// asked) passes them. Its head block, StaticHead, is above its finalized
// one (the head's parent), so that no answer about the head is final and
// none is cached: every call reaches the upstream. The transactions are
// in the head; the blocks list none (a block's transactions are not what
// the static upstream is for).

// StaticTxCount is how many transactions the static upstream knows.
const StaticTxCount = 4096

// StaticHead is the static upstream's head block number.
const StaticHead = 0x5daf3b

// staticChainID is the chain id the transactions are signed for (the dev
// chain's, 1337).
const staticChainID = 0x539

// staticChainData is what the static upstream answers, built once.
type staticChainData struct {
	hashes   []string                   // the transactions' hashes, "0x…"
	txs      map[string]json.RawMessage // transaction objects by hash
	receipts map[string]json.RawMessage // receipts by transaction hash
	byIndex  []json.RawMessage          // the transaction objects in order
	head     json.RawMessage            // the head block, without transactions
	final    json.RawMessage            // its parent, the finalized block
	// headHash and finalHash are their hashes, "0x…".
	headHash, finalHash string
}

var (
	staticOnce  sync.Once
	staticChain *staticChainData
)

// staticData is the static chain, built at first use (signing takes a
// few tenths of a second).
func staticData() *staticChainData {
	staticOnce.Do(func() { staticChain = buildStaticChain() })
	return staticChain
}

// StaticHashes are the hashes of the static upstream's transactions,
// the same in every process (the key and the signatures are
// deterministic): the load tool asks for them by default.
func StaticHashes() []string { return staticData().hashes }

func buildStaticChain() *staticChainData {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("nodegate-bench static upstream")))
	if err != nil {
		panic(fmt.Sprintf("static key: %v", err)) // a constant's hash is a valid key
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID := big.NewInt(staticChainID)
	signer := types.LatestSignerForChainID(chainID)
	final := staticHeader(StaticHead-1, common.Hash{1})
	head := staticHeader(StaticHead, final.Hash())
	to := common.HexToAddress("0xf02c1c8e6114b1dbe8937a39260b5b0a374432bb")
	// An ERC-20 transfer's calldata padded to about 1 KB, as real calldata would be.
	input := common.FromHex("0xa9059cbb000000000000000000000000f02c1c8e6114b1dbe8937a39260b5b0a374432bb00000000000000000000000000000000000000000000000000000000000f4240" + strings.Repeat("00", 860))
	d := &staticChainData{txs: map[string]json.RawMessage{}, receipts: map[string]json.RawMessage{},
		head: blockJSON(head), final: blockJSON(final), headHash: head.Hash().Hex(), finalHash: final.Hash().Hex()}
	for i := range StaticTxCount {
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: uint64(i), GasTipCap: big.NewInt(1e9),
			GasFeeCap: big.NewInt(4e10), Gas: 50000, To: &to, Data: input})
		h := tx.Hash().Hex()
		obj := txJSON(tx, from, head.Hash(), uint64(i))
		d.hashes = append(d.hashes, h)
		d.txs[h] = obj
		d.byIndex = append(d.byIndex, obj)
		d.receipts[h] = receiptJSON(tx, from, head.Hash(), uint64(i))
	}
	return d
}

// staticHeader is a post-Cancun header of block n with parent.
func staticHeader(n uint64, parent common.Hash) *types.Header {
	zero, excess := uint64(0), uint64(0)
	return &types.Header{
		ParentHash: parent, UncleHash: types.EmptyUncleHash, Root: common.Hash{2}, TxHash: types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash, Difficulty: new(big.Int), Number: new(big.Int).SetUint64(n),
		GasLimit: 30_000_000, GasUsed: 0, Time: 1_700_000_000 + n*12, BaseFee: big.NewInt(7),
		WithdrawalsHash: &types.EmptyWithdrawalsHash, BlobGasUsed: &zero, ExcessBlobGas: &excess,
		ParentBeaconRoot: &common.Hash{}, RequestsHash: &types.EmptyRequestsHash,
	}
}

// blockJSON is a block of header h without transactions, as a node
// answers it.
func blockJSON(h *types.Header) json.RawMessage {
	hj, err := h.MarshalJSON()
	if err != nil {
		panic(fmt.Sprintf("static header: %v", err))
	}
	var m map[string]any
	_ = json.Unmarshal(hj, &m)
	m["hash"] = h.Hash()
	m["transactions"] = []string{}
	m["uncles"] = []string{}
	m["withdrawals"] = []string{}
	m["size"] = "0x260"
	out, _ := json.Marshal(m)
	return out
}

// txJSON is tx as a node answers it: its fields, its hash, sender and place.
func txJSON(tx *types.Transaction, from common.Address, block common.Hash, i uint64) json.RawMessage {
	tj, err := tx.MarshalJSON()
	if err != nil {
		panic(fmt.Sprintf("static transaction: %v", err))
	}
	var m map[string]any
	_ = json.Unmarshal(tj, &m)
	m["from"] = from
	m["blockHash"] = block
	m["blockNumber"] = hexutil.Uint64(StaticHead)
	m["transactionIndex"] = hexutil.Uint64(i)
	m["gasPrice"] = (*hexutil.Big)(tx.GasFeeCap())
	out, _ := json.Marshal(m)
	return out
}

// receiptJSON is a successful receipt of tx without logs.
func receiptJSON(tx *types.Transaction, from common.Address, block common.Hash, i uint64) json.RawMessage {
	out, _ := json.Marshal(map[string]any{
		"blockHash": block, "blockNumber": hexutil.Uint64(StaticHead), "contractAddress": nil,
		"cumulativeGasUsed": hexutil.Uint64(21000 * (i + 1)), "effectiveGasPrice": hexutil.Uint64(1e9 + 7),
		"from": from, "gasUsed": hexutil.Uint64(21000), "logs": []any{}, "logsBloom": types.Bloom{},
		"status": "0x1", "to": tx.To(), "transactionHash": tx.Hash(), "transactionIndex": hexutil.Uint64(i), "type": "0x2",
	})
	return out
}

var null = json.RawMessage("null")

// staticChainAnswer is the static chain's answer to a call of method
// with params: the transaction, receipt or block they name, or null when
// the chain has none; ok is false for a method it does not serve.
func staticChainAnswer(method string, params json.RawMessage) (json.RawMessage, bool) {
	d := staticData()
	first := jsonrpc.Element(params, 0)
	switch method {
	case "eth_getTransactionByHash":
		return orNull(d.txs[unquote(first)]), true
	case "eth_getTransactionReceipt":
		return orNull(d.receipts[unquote(first)]), true
	case "eth_getTransactionByBlockHashAndIndex", "eth_getTransactionByBlockNumberAndIndex":
		if b := d.block(first); b == nil || &b[0] != &d.head[0] {
			return null, true
		}
		i, err := hexutil.DecodeUint64(unquote(jsonrpc.Element(params, 1)))
		if err != nil || i >= uint64(len(d.byIndex)) {
			return null, true
		}
		return d.byIndex[i], true
	case "eth_getBlockByNumber", "eth_getBlockByHash":
		return orNull(d.block(first)), true
	}
	return nil, false
}

// block is the block a param names (a tag, a number or a hash), nil when
// the chain has none.
func (d *staticChainData) block(v []byte) json.RawMessage {
	s := unquote(v)
	switch s {
	case "latest", "pending":
		return d.head
	case "finalized", "safe":
		return d.final
	}
	switch s {
	case d.headHash:
		return d.head
	case d.finalHash:
		return d.final
	}
	switch n, err := hexutil.DecodeUint64(s); {
	case err != nil:
		return nil
	case n == StaticHead:
		return d.head
	case n == StaticHead-1:
		return d.final
	}
	return nil
}

// unquote is a JSON string param's text, lowercased ("" when not a string).
func unquote(v []byte) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return ""
	}
	return strings.ToLower(string(v[1 : len(v)-1]))
}

func orNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return null
	}
	return v
}
