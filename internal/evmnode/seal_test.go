package evmnode

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/testenv"
)

func startDev(t *testing.T, period time.Duration) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := Start(ctx, Config{BlockTime: period})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// transfer sends a signed transfer of 1 wei from dev account i.
func transfer(t *testing.T, n *Node, i int, nonce uint64) common.Hash {
	t.Helper()
	acc := n.Accounts()[i]
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(n.ChainID()))
	tx, err := types.SignNewTx(acc.Key, signer, &types.DynamicFeeTx{
		ChainID: new(big.Int).SetUint64(n.ChainID()), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e10),
		Gas: 21000, To: &common.Address{0x42}, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Ethereum().TxPool().Add([]*types.Transaction{tx}, true)[0]; err != nil {
		t.Fatal(err)
	}
	return tx.Hash()
}

func waitMined(t *testing.T, n *Node, h common.Hash) {
	t.Helper()
	testenv.WaitFor(t, 10*time.Second, "transaction "+h.Hex()+" mined", func() bool {
		found, _, _, _, _ := n.Ethereum().APIBackend.GetCanonicalTransaction(h)
		return found
	})
}

// TestDevChainSealsPerTransaction: with block time 0 a transaction is mined
// without anybody asking for a block.
func TestDevChainSealsPerTransaction(t *testing.T) {
	n := startDev(t, 0)
	if n.Ethereum().BlockChain().CurrentBlock().Number.Uint64() != 1 {
		t.Fatal("the dev chain starts with one empty block")
	}
	waitMined(t, n, transfer(t, n, 0, 0))
}

// TestDevChainSealsOnPeriod: with a block time, blocks come by themselves.
func TestDevChainSealsOnPeriod(t *testing.T) {
	n := startDev(t, 100*time.Millisecond)
	start := n.Ethereum().BlockChain().CurrentBlock().Number.Uint64()
	testenv.WaitFor(t, 10*time.Second, "two blocks sealed by a 100ms period", func() bool {
		return n.Ethereum().BlockChain().CurrentBlock().Number.Uint64() >= start+2
	})
}

// TestCommitWhileSealing: explicit Commits racing with per-transaction
// sealing neither deadlock nor lose a transaction (go-ethereum's beacon
// hangs when two seals overlap).
func TestCommitWhileSealing(t *testing.T) {
	n := startDev(t, 0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				_ = n.Commit()
			}
		}
	})
	var hashes []common.Hash
	for i := range uint64(20) {
		hashes = append(hashes, transfer(t, n, 1, i))
	}
	for _, h := range hashes {
		waitMined(t, n, h)
	}
	close(done)
	wg.Wait()
}

// TestDevChainOneBlockPerTransaction: a transaction makes exactly one block
// (no empty block after it), and the chain starts at head 1 (one empty
// block that starts the transaction indexer), as README.md says.
func TestDevChainOneBlockPerTransaction(t *testing.T) {
	n := startDev(t, 0)
	head := func() uint64 { return n.Ethereum().BlockChain().CurrentBlock().Number.Uint64() }
	if got := head(); got != 1 {
		t.Fatalf("head at start %d, want 1", got)
	}
	for i := uint64(0); i < 3; i++ {
		waitMined(t, n, transfer(t, n, 0, i))
		time.Sleep(300 * time.Millisecond) // room for a stray second block
		if got := head(); got != 2+i {
			t.Fatalf("after transaction %d: head %d, want %d (one block per transaction)", i+1, got, 2+i)
		}
	}
}
