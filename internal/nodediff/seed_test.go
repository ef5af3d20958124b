package nodediff

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/nodegate/nodegate/internal/testenv"
)

// logTopic is the topic the contract logs on every call without data.
var logTopic = crypto.Keccak256Hash([]byte("nodegate node diff"))

// revertWord is the data the contract reverts with on a call with data.
var revertWord = crypto.Keccak256Hash([]byte("nodegate node diff revert"))

// contractCode is the creation code of a contract that stores 0x2a at slot
// 0; called without data it logs logTopic and returns the word 0x2a, with
// data it reverts with revertWord.
func contractCode() []byte {
	runtime := "3615602e" + "57" + // CALLDATASIZE ISZERO PUSH1 ok (46) JUMPI
		"7f" + hex.EncodeToString(revertWord[:]) + "600052" + "60206000fd" + // MSTORE the word at 0; REVERT 32 bytes
		"5b" + // ok: JUMPDEST
		"7f" + hex.EncodeToString(logTopic[:]) + "60006000a1" + // LOG1 (no data)
		"602a600052" + "60206000f3" // RETURN the word 0x2a
	n := len(runtime) / 2
	init := "602a600055" + // SSTORE 0x2a at slot 0
		fmt.Sprintf("60%02x6011600039", n) + // CODECOPY the runtime (at offset 17) to 0
		fmt.Sprintf("60%02x6000f3", n) // RETURN it
	code, err := hex.DecodeString(init + runtime)
	if err != nil {
		panic(err)
	}
	return code
}

// chain is what the seeded chain holds.
type chain struct {
	from     common.Address
	contract common.Address
	deploy   *types.Receipt // the contract's creation
	call     *types.Receipt // a call that logged
	gasLimit uint64         // the head block's
}

// seed deploys the contract and calls it once, each in a transaction of
// its own signed by the node's dev key.
func seed(t *testing.T, n node) chain {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := ethclient.DialContext(ctx, n.http)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	price, err := c.SuggestGasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(n.key.PublicKey)
	send := func(to *common.Address, data []byte) *types.Receipt {
		nonce, err := c.PendingNonceAt(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignTx(types.NewTx(&types.LegacyTx{Nonce: nonce, To: to, Gas: 300_000, GasPrice: new(big.Int).Mul(price, big.NewInt(2)), Data: data}),
			types.LatestSignerForChainID(chainID), n.key)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("%s: send: %v", n.name, err)
		}
		var r *types.Receipt
		testenv.WaitFor(t, 30*time.Second, n.name+" mines the transaction", func() bool {
			r, err = c.TransactionReceipt(ctx, tx.Hash())
			return err == nil && r != nil
		})
		if r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s: transaction %s failed", n.name, tx.Hash())
		}
		return r
	}
	deploy := send(nil, contractCode())
	call := send(&deploy.ContractAddress, nil)
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return chain{from: from, contract: deploy.ContractAddress, deploy: deploy, call: call, gasLimit: head.GasLimit}
}
