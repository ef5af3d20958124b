package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestLogsSubscriptionReorg: a log whose block leaves the chain in a reorg
// is sent again with removed: true, through nodegate's shared upstream
// subscription, and the transaction's log arrives again from its new block.
func TestLogsSubscriptionReorg(t *testing.T) {
	s := start(t, nil)
	ec, _ := dialEth(t, wsEndpoint(s), nil)
	topic := crypto.Keccak256Hash([]byte("nodegate reorg test"))
	acc := s.Node.Accounts()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nonce, err := ec.PendingNonceAt(ctx, acc.Address)
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.CreateAddress(acc.Address, nonce)
	logs := make(chan types.Log, 8)
	sub, err := ec.SubscribeFilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{addr}, Topics: [][]common.Hash{{topic}}}, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	sendCreate(t, ec, s.Node, logEmitterInitCode(topic)) // sealed at once: a block per transaction
	first := nextLog(t, logs, sub)
	if first.Removed {
		t.Fatalf("first log already removed: %+v", first)
	}
	block := s.Node.Ethereum().BlockChain().GetBlockByHash(first.BlockHash)
	if block == nil {
		t.Fatal("the log's block is unknown")
	}
	// Reorg: the parent of the log's block becomes the head; the creation
	// returns to the pool and is sealed again in a new block.
	if err := s.Node.Fork(block.ParentHash()); err != nil {
		t.Fatal(err)
	}
	if err := s.Node.Commit(); err != nil { // the new branch gets ahead
		t.Fatal(err)
	}
	var removed, again bool
	for !(removed && again) {
		l := nextLog(t, logs, sub)
		switch {
		case l.Removed && l.BlockHash == first.BlockHash && l.TxHash == first.TxHash:
			removed = true
		case !l.Removed && l.TxHash == first.TxHash && l.BlockHash != first.BlockHash:
			again = true
		default:
			t.Fatalf("unexpected log: %+v", l)
		}
	}
}

func nextLog(t *testing.T, logs <-chan types.Log, sub ethereum.Subscription) types.Log {
	t.Helper()
	select {
	case l := <-logs:
		return l
	case err := <-sub.Err():
		t.Fatalf("subscription ended: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("no log within 15s")
	}
	return types.Log{}
}
