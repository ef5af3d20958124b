package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
)

const nodeHeader = `Usage: nodegate node [flags]

Runs only the embedded go-ethereum node, with its own plain JSON-RPC over HTTP and
WebSocket on one address and no keys: a real node process for local work and tests.

Flags:
`

func runNode(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("node")
	listen := fs.String("listen", "127.0.0.1:8555", "HTTP and WebSocket `address` (host:port; port 0 picks a free one)")
	chain := fs.String("chain", "", "import genesis.json + chain.rlp from `dir` (and apply headfcu.json if present) instead of the dev chain")
	blockTime := fs.Duration("block-time", 0, "dev chain block `period`; 0 seals one block per transaction")
	if err := parseFlags(fs, nodeHeader, args, stderr); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "nodegate node:", err)
		return 2
	}
	if _, _, err := net.SplitHostPort(*listen); err != nil {
		fmt.Fprintf(stderr, "nodegate node: --listen wants host:port, got %q\n", *listen)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	n, err := evmnode.Start(ctx, evmnode.Config{ChainDir: *chain, BlockTime: *blockTime, HTTPAddr: *listen})
	if err != nil {
		fmt.Fprintln(stderr, "nodegate node:", err)
		return 1
	}
	fmt.Fprintf(stdout, "node listening on %s (HTTP and WebSocket), chain id %d\n", n.HTTPEndpoint(), n.ChainID())
	printAccounts(stdout, n.Accounts())
	<-ctx.Done()
	done := make(chan error, 1)
	go func() { done <- n.Close() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		err = errors.New("timed out")
	}
	if err != nil {
		fmt.Fprintln(stderr, "nodegate node: close:", err)
		return 1
	}
	return 0
}
