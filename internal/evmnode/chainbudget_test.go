package evmnode

import (
	"context"
	"crypto/rand"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/testenv"
)

// rawDataTx is a signed transaction from dev account i carrying size bytes
// of calldata, hex-encoded for eth_sendRawTransaction.
func rawDataTx(t *testing.T, n *Node, i int, nonce uint64, size int) string {
	t.Helper()
	data := make([]byte, size)
	_, _ = rand.Read(data)
	acc := n.Accounts()[i]
	id := new(big.Int).SetUint64(n.ChainID())
	tx, err := types.SignNewTx(acc.Key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e11),
		Gas: 21000 + 40*uint64(size), To: &common.Address{0x42}, Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tx.MarshalBinary()
	return hexutil.Encode(b)
}

// TestChainBudget: once its blocks hold MaxChainBytes, the node answers
// every transaction -32005 saying why, alone or in a batch, and keeps
// answering reads.
func TestChainBudget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := Start(ctx, Config{MaxChainBytes: 200 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	send := func(nonce uint64) string {
		out, err := n.Do(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"eth_sendRawTransaction","params":["`+rawDataTx(t, n, 0, nonce, 30<<10)+`"]}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	var nonce uint64
	for ; nonce < 40; nonce++ {
		out := send(nonce)
		if strings.Contains(out, `"error"`) {
			if !strings.Contains(out, `"code":-32005`) || !strings.Contains(out, "chain is full") || !strings.Contains(out, `"id":7`) {
				t.Fatalf("transaction %d: %s", nonce, out)
			}
			break
		}
		testenv.WaitFor(t, 10*time.Second, "the block counted", func() bool { return n.ChainBytes() > int64(nonce+1)*30<<10 })
	}
	if nonce == 40 || nonce < 5 {
		t.Fatalf("refused at transaction %d; want after about 7 of 30 KiB for a 200 KiB budget", nonce)
	}
	out, err := n.Do(ctx, []byte(`[{"jsonrpc":"2.0","id":"a","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":"b","method":"eth_sendRawTransaction","params":["`+rawDataTx(t, n, 1, 0, 100)+`"]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); !strings.Contains(s, `{"jsonrpc":"2.0","id":"a","result":"0x539"}`) || !strings.Contains(s, `"id":"b","error":{"code":-32005`) {
		t.Fatalf("batch: %s", out)
	}
	t.Logf("refused after %d transactions, %d bytes counted", nonce, n.ChainBytes())
}

// TestChainBudgetBeforeSealing: writes that arrive faster than blocks are
// sealed cannot pass the budget between two blocks. With an hour between
// blocks nothing is sealed, and still the node refuses once the sent
// transactions fill the budget; a refused or failing write takes nothing.
func TestChainBudgetBeforeSealing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := Start(ctx, Config{MaxChainBytes: 200 << 10, BlockTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	send := func(acc int, nonce uint64) string {
		out, err := n.Do(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"eth_sendRawTransaction","params":["`+rawDataTx(t, n, acc, nonce, 30<<10)+`"]}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	sealed := n.ChainBytes() // the start's empty block
	// A transaction the node refuses (a replayed nonce) reserves nothing.
	if out := send(0, 0); !strings.Contains(out, `"result"`) {
		t.Fatalf("first transaction: %s", out)
	}
	for range 20 {
		if out := send(0, 0); !strings.Contains(out, `"error"`) || strings.Contains(out, "chain is full") {
			t.Fatalf("replayed transaction: %s", out)
		}
	}
	taken := 1
	for nonce := uint64(1); nonce < 40; nonce++ {
		out := send(0, nonce)
		if strings.Contains(out, "chain is full") {
			break
		}
		if !strings.Contains(out, `"result"`) {
			t.Fatalf("transaction %d: %s", nonce, out)
		}
		taken++
	}
	if n.ChainBytes() != sealed {
		t.Fatalf("%d bytes sealed; the test needs no block after the start's", n.ChainBytes())
	}
	if taken < 5 || taken*(30<<10) > 200<<10 {
		t.Fatalf("%d transactions of 30 KiB taken before any block, budget 200 KiB", taken)
	}
	t.Logf("%d transactions taken before the budget refused, none sealed", taken)
}
