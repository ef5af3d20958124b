package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/nodegate/nodegate/internal/bench"
)

const passthroughHeader = `Usage: nodegate-bench passthrough --upstream URL [--listen ADDR]

Serves a bare net/http pass-through: every POST body goes to URL as is and the answer
comes back unchanged. Measure it next to nodegate (both pinned to one core, in front of
the same static upstream) for the CPU that forwarding alone costs. Prints
"passthrough listening on http://ADDR".

Flags:
`

func runPassthrough(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("passthrough", passthroughHeader, stderr)
	listen := fs.String("listen", "127.0.0.1:8601", "`address` to listen on (port 0 picks a free one)")
	up := fs.String("upstream", "", "upstream `URL` (required)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if *up == "" {
		fmt.Fprintln(stderr, "nodegate-bench passthrough: --upstream is required")
		return 2
	}
	p, err := bench.StartPassthrough(*listen, *up)
	return serveUntilSignal("passthrough", "passthrough", p, err, stdout, stderr)
}
