package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "run":
		return runLoad(args, stdout, stderr)
	case "static":
		return runStatic(args, stdout, stderr)
	case "passthrough":
		return runPassthrough(args, stdout, stderr)
	case "seed":
		return runSeed(args, stdout, stderr)
	case "subscribe":
		return runSubscribe(args, stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "nodegate-bench: unknown command %q\n\n", cmd)
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `nodegate-bench — load tool for nodegate and JSON-RPC nodes

Usage:
  nodegate-bench run --url URL [--compare URL2] [flags]   drive load; print req/s, latency, errors, CPU per call
  nodegate-bench static [--listen ADDR]                  serve a static JSON-RPC upstream with fixed answers
  nodegate-bench passthrough --upstream URL [--listen ADDR]  a bare net/http pass-through (the CPU yardstick)
  nodegate-bench seed --url URL [flags]                  send transfers and deploy a view contract on a dev chain
  nodegate-bench subscribe --url WS --subscribers N [--kind newHeads|logs]  time a subscription's fan-out

Run 'nodegate-bench COMMAND --help' for the flags of a command.
`)
}
