package main

import (
	"errors"
	"flag"
	"io"

	"github.com/nodegate/nodegate/internal/bench"
)

const staticHeader = `Usage: nodegate-bench static [--listen ADDR]

Serves a static JSON-RPC upstream: a real chain's answers (4,096 signed ~1 KB transactions
by hash for eth_getTransactionByHash, a 32-byte word for eth_call, ...), each request's id echoed,
batches answered call by call. Put nodegate in front of it (--upstream) to measure the
gateway's own cost. Prints "static upstream listening on http://ADDR".

Flags:
`

func runStatic(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("static", staticHeader, stderr)
	listen := fs.String("listen", "127.0.0.1:8600", "`address` to listen on (port 0 picks a free one)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	s, err := bench.StartStatic(*listen)
	return serveUntilSignal("static", "static upstream", s, err, stdout, stderr)
}
