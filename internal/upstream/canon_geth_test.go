package upstream_test

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// TestPoolKnowsGethHeadsByHash: a go-ethereum member polled for its head
// block gives the pool its chain by hash: the pool's canonical block at
// the head is the node's.
func TestPoolKnowsGethHeadsByHash(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := evmnode.Start(ctx, evmnode.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	h, err := transport.NewHTTP(n.HTTPEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	p := startPool(t, upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber", HeadInterval: 10 * time.Millisecond}, upstream.MemberConfig{Upstream: h})
	for range 3 {
		if err := n.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	bc := n.Ethereum().BlockChain()
	testenv.WaitFor(t, 10*time.Second, "the pool to hold the node's head by hash", func() bool {
		head := bc.CurrentBlock()
		got, ok := p.Canonical(head.Number.Uint64())
		return ok && got == head.Hash() && p.Head() == head.Number.Uint64()
	})
	parent := bc.CurrentBlock().ParentHash
	if got, ok := p.Canonical(bc.CurrentBlock().Number.Uint64() - 1); ok && got != parent {
		t.Errorf("canonical parent %s, the node's %s", got, parent)
	}
}
