package ingress_test

import (
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestSendRawTransaction sends a transaction signed with a dev account
// through the gateway, then reads it and its receipt back through it.
func TestSendRawTransaction(t *testing.T) {
	t.Parallel()
	accs := gw.Node.Accounts()
	if len(accs) < 2 {
		t.Fatalf("dev chain has %d accounts", len(accs))
	}
	from, to := accs[0], accs[1]

	a := post(t, call("1", "eth_getTransactionCount", `["`+from.Address.Hex()+`","pending"]`)).single(t)
	var nonce hexutil.Uint64
	if a.Error != nil || json.Unmarshal(a.Result, &nonce) != nil {
		t.Fatalf("nonce: %s %+v", a.Result, a.Error)
	}
	chainID := big.NewInt(int64(gw.Node.ChainID()))
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID:   chainID,
		Nonce:     uint64(nonce),
		GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(100 * params.GWei),
		Gas:       21000,
		To:        &to.Address,
		Value:     big.NewInt(12345),
	}), types.LatestSignerForChainID(chainID), from.Key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatalf("encode: %v", err)
	}

	a = post(t, call(`"send"`, "eth_sendRawTransaction", `["`+hexutil.Encode(raw)+`"]`)).single(t)
	if a.Error != nil || string(a.Result) != `"`+tx.Hash().Hex()+`"` {
		t.Fatalf("send: result %s, error %+v, want %s", a.Result, a.Error, tx.Hash().Hex())
	}

	hashParam := `["` + tx.Hash().Hex() + `"]`
	var receipt struct {
		Status          string `json:"status"`
		TransactionHash string `json:"transactionHash"`
		From            string `json:"from"`
		BlockNumber     string `json:"blockNumber"`
	}
	testenv.WaitFor(t, 10*time.Second, "the receipt", func() bool {
		a = post(t, call("2", "eth_getTransactionReceipt", hashParam)).single(t)
		return a.Error == nil && string(a.Result) != "null"
	})
	if err := json.Unmarshal(a.Result, &receipt); err != nil {
		t.Fatalf("receipt: %v: %s", err, a.Result)
	}
	if receipt.Status != "0x1" || receipt.TransactionHash != tx.Hash().Hex() || !equalFold(receipt.From, from.Address.Hex()) {
		t.Fatalf("receipt %+v", receipt)
	}

	a = post(t, call("3", "eth_getTransactionByHash", hashParam)).single(t)
	var got struct {
		Hash  string `json:"hash"`
		Value string `json:"value"`
	}
	if a.Error != nil || json.Unmarshal(a.Result, &got) != nil || got.Hash != tx.Hash().Hex() || got.Value != "0x3039" {
		t.Fatalf("transaction: %s %+v", a.Result, a.Error)
	}

	// The same transaction again: the node's own error passes through untouched.
	a = post(t, call("4", "eth_sendRawTransaction", `["`+hexutil.Encode(raw)+`"]`)).single(t)
	if a.Error == nil || a.Error.Code != -32000 {
		t.Fatalf("replayed transaction: %s %+v", a.Result, a.Error)
	}
}

func TestSendRawTransactionGarbage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, params string
		code         int
	}{
		{"not hex", `["0xzz"]`, -32602},
		{"not a transaction", `["0x0102"]`, -32000},
		{"missing", `[]`, -32602},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, post(t, call("1", "eth_sendRawTransaction", tc.params)), 200, tc.code, "", "1")
		})
	}
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}
