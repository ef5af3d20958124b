package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/jsonrpc"
)

// emitLog is init code that logs the word 42 (LOG0) and deploys nothing.
var emitLog = common.FromHex("0x602a60005260206000a000")

// chain is a real dev chain with a block holding a transfer and a
// contract creation that logs, and the hashes to ask it for.
type chain struct {
	node     *evmnode.Node
	block    common.Hash // the block of the two transactions
	number   uint64
	index    uint64      // the logger's index in block
	transfer common.Hash // a value transfer (a dynamic-fee transaction)
	logger   common.Hash // a contract creation that logs (a legacy transaction)
}

// newChain starts a node sealing every transaction in its own block and
// sends two transactions to it.
func newChain(t testing.TB) *chain {
	t.Helper()
	n := evmnodetest.Start(t, evmnode.Config{})
	acc := n.Accounts()[0]
	chainID := new(big.Int).SetUint64(n.ChainID())
	signer := types.LatestSignerForChainID(chainID)
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	transfer := types.MustSignNewTx(acc.Key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e10), Gas: 21000, To: &to, Value: big.NewInt(7)})
	logger := types.MustSignNewTx(acc.Key, signer, &types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(1e10), Gas: 100000, Data: emitLog})
	c := &chain{node: n, transfer: transfer.Hash(), logger: logger.Hash()}
	for _, tx := range []*types.Transaction{transfer, logger} {
		raw, _ := tx.MarshalBinary()
		c.call(t, "eth_sendRawTransaction", fmt.Sprintf(`["%s"]`, hexutil.Encode(raw)))
	}
	var r struct {
		BlockHash        common.Hash    `json:"blockHash"`
		BlockNumber      hexutil.Uint64 `json:"blockNumber"`
		TransactionIndex hexutil.Uint64 `json:"transactionIndex"`
	}
	testenv.WaitFor(t, 30*time.Second, "both transactions mined", func() bool {
		return string(c.call(t, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.transfer))) != "null" &&
			string(c.call(t, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger))) != "null"
	})
	if err := json.Unmarshal(c.call(t, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger)), &r); err != nil {
		t.Fatalf("receipt: %v", err)
	}
	c.block, c.number, c.index = r.BlockHash, uint64(r.BlockNumber), uint64(r.TransactionIndex)
	return c
}

// call asks the node and returns its result, failing on an error.
func (c *chain) call(t testing.TB, method, params string) json.RawMessage {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	out, err := c.node.Do(context.Background(), []byte(body))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil || resp.Err != nil {
		t.Fatalf("%s: %v %+v", method, err, resp.Err)
	}
	return resp.Result
}

var table = methods.NewTable(methods.FamilyEVM)

// rule is the method table's rule of method.
func rule(t testing.TB, method string) *methods.Rule {
	t.Helper()
	r, err := table.Lookup(method)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return r
}
