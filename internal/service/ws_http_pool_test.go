package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
)

// TestHTTPOnlyPoolSubscriptions: nodegate in front of a node it reaches
// by http:// only (no push at all) serves newHeads and logs over its
// WebSocket, made from the pool's canonical chain: each head once, and,
// when the node reorganises, the log of the abandoned block again with
// removed: true, then the log from its new block, each exactly once.
func TestHTTPOnlyPoolSubscriptions(t *testing.T) {
	node := evmnodetest.StartHTTP(t)
	s := start(t, func(c *config.Config) { c.Upstream = node.HTTPEndpoint() })
	ec, _ := dialEth(t, wsEndpoint(s), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	heads := make(chan *types.Header, 16)
	hsub, err := ec.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("newHeads on an http-only pool: %v", err)
	}
	defer hsub.Unsubscribe()
	topic := crypto.Keccak256Hash([]byte("nodegate http-only reorg test"))
	acc := node.Accounts()[0]
	nonce, err := ec.PendingNonceAt(ctx, acc.Address)
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.CreateAddress(acc.Address, nonce)
	logs := make(chan types.Log, 16)
	lsub, err := ec.SubscribeFilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{addr}, Topics: [][]common.Hash{{topic}}}, logs)
	if err != nil {
		t.Fatalf("logs on an http-only pool: %v", err)
	}
	defer lsub.Unsubscribe()

	sendCreate(t, ec, node, logEmitterInitCode(topic)) // sealed at once: a block per transaction
	first := nextLog(t, logs, lsub)
	if first.Removed {
		t.Fatalf("first log already removed: %+v", first)
	}
	if h := nextHead(t, heads, hsub); h.Hash() != first.BlockHash {
		t.Fatalf("head %d %s, want the log's block %s", h.Number, h.Hash(), first.BlockHash)
	}
	block := node.Ethereum().BlockChain().GetBlockByHash(first.BlockHash)
	if err := node.Fork(block.ParentHash()); err != nil {
		t.Fatal(err)
	}
	if err := node.Commit(); err != nil { // the creation, sealed again on the new branch
		t.Fatal(err)
	}
	removed := nextLog(t, logs, lsub)
	if !removed.Removed || removed.BlockHash != first.BlockHash || removed.TxHash != first.TxHash {
		t.Fatalf("after the reorg %+v, want the first log removed", removed)
	}
	again := nextLog(t, logs, lsub)
	if again.Removed || again.TxHash != first.TxHash || again.BlockHash == first.BlockHash {
		t.Fatalf("after the removal %+v, want the log from its new block", again)
	}
	// One more block: its head comes after every log of the blocks before
	// it (one connection, in order), and no log came twice.
	if err := node.Commit(); err != nil {
		t.Fatal(err)
	}
	tip := node.Ethereum().BlockChain().CurrentBlock().Hash()
	for nextHead(t, heads, hsub).Hash() != tip {
		// heads of the blocks before it
	}
	select {
	case l := <-logs:
		t.Fatalf("a log again: %+v", l)
	default:
	}
}

func nextHead(t *testing.T, heads <-chan *types.Header, sub ethereum.Subscription) *types.Header {
	t.Helper()
	select {
	case h := <-heads:
		return h
	case err := <-sub.Err():
		t.Fatalf("subscription ended: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("no head within 15s")
	}
	return nil
}
