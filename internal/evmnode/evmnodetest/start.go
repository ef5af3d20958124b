package evmnodetest

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
)

// startWithin bounds how long a node may take to start (an imported
// chain takes longest).
const startWithin = 2 * time.Minute

// Start starts an embedded node with cfg and closes it when the test
// ends; the test fails when the node does not start.
func Start(t testing.TB, cfg evmnode.Config) *evmnode.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startWithin)
	defer cancel()
	n, err := evmnode.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start the embedded node: %v", err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// StartHTTP is Start serving HTTP and WebSocket on an OS-picked
// 127.0.0.1 port (n.HTTPEndpoint()).
func StartHTTP(t testing.TB) *evmnode.Node {
	t.Helper()
	return Start(t, evmnode.Config{HTTPAddr: "127.0.0.1:0"})
}
