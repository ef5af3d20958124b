package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/nodegate/nodegate/internal/cli/accountscmd"
	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/cli/planscmd"
	"github.com/nodegate/nodegate/internal/evmnode"
)

func main() {
	evmnode.SetLogging(slog.LevelError) // go-ethereum's logs from error level up; nodegate's own at info
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand; serve is the default.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd, args = "help", nil
	} else if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(args, stdout, stderr)
	case "node":
		return runNode(args, stdout, stderr)
	case "keys":
		return keyscmd.Run(args, stdout, stderr)
	case "accounts":
		return accountscmd.Run(args, stdout, stderr)
	case "plans":
		return planscmd.Run(args, stdout, stderr)
	case "health":
		return runHealth(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "nodegate", Version())
		return 0
	case "help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "nodegate: unknown command %q\n\n", cmd)
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `nodegate — JSON-RPC access service for blockchain nodes

Usage:
  nodegate [serve] [flags]   run the service (default); 'nodegate serve --help' lists its flags
  nodegate node [flags]      run only the embedded node, plain JSON-RPC over HTTP and WebSocket
  nodegate keys COMMAND      manage API keys: create, list, show, update, revoke, usage
                             ('nodegate keys --help'; docs/keys.md)
  nodegate accounts COMMAND  manage customer accounts: list, show, disable, enable, set-plan,
                             invite, requests, grant, decline ('nodegate accounts --help'; docs/dashboard.md)
  nodegate plans show|push   the fleet's plans in the key store; push makes a config file's
                             plans: the fleet's ('nodegate plans --help'; docs/keys.md)
  nodegate health URL        exit 0 when GET URL answers 200 (container health checks)
  nodegate version           print the version
  nodegate help              this text

With no flags, nodegate serves http://127.0.0.1:8545/v3/<key> in front of an embedded
go-ethereum dev chain (chain id 1337) and prints a key, funded accounts and a curl line.
`)
}
