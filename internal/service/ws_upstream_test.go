package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
)

// TestWebSocketUpstream: nodegate in front of a node reachable only by
// ws://: calls go over the multiplexed WebSocket upstream, subscriptions
// over the node's own WebSocket.
func TestWebSocketUpstream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	node := evmnodetest.StartHTTP(t)
	s := start(t, func(c *config.Config) { c.Upstream = "ws" + strings.TrimPrefix(node.HTTPEndpoint(), "http") })
	if s.Node != nil {
		t.Fatal("embedded node started despite an upstream")
	}
	ec, _ := dialEth(t, wsEndpoint(s), nil)
	id, err := ec.ChainID(ctx)
	if err != nil || id.Uint64() != 1337 {
		t.Fatalf("chain id %v %v", id, err)
	}
	heads := make(chan *types.Header, 4)
	sub, err := ec.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	defer sub.Unsubscribe()
	_ = node.Commit()
	select {
	case h := <-heads:
		if h.Hash() != node.Ethereum().BlockChain().CurrentBlock().Hash() {
			t.Fatalf("head %s", h.Hash())
		}
	case err := <-sub.Err():
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no head through the ws upstream")
	}
}
