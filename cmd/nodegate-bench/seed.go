package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/evmnode"
)

const seedHeader = `Usage: nodegate-bench seed --url URL [flags]

Prepares a dev chain for realistic load: deploys a small view contract (every call
returns the 32-byte word 42 read from storage) and sends --count transfers from a dev
account, signed here and sent with eth_sendRawTransaction, then waits until all are
mined. Writes the transfer hashes to --out (for 'run --hashes') and prints the
contract address (for 'run --call-to'). With the same account on two fresh dev chains
the hashes and the contract address are the same on both.

Flags:
`

func runSeed(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("seed", seedHeader, stderr)
	url := fs.String("url", "", "JSON-RPC `URL` (nodegate's /v3/KEY or a node)")
	count := fs.Int("count", 500, "transfers to send")
	out := fs.String("out", "hashes.txt", "`file` to write the transfer hashes to")
	account := fs.Int("account", 9, "dev account `index` (0-9) to send from")
	key := fs.String("key", "", "private `key` (hex) to send from instead of a dev account")
	wait := fs.Duration("wait", time.Minute, "how long to wait for the transactions to be mined")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if *url == "" {
		fmt.Fprintln(stderr, "nodegate-bench seed: --url is required")
		return 2
	}
	cfg := bench.SeedConfig{URL: *url, Count: *count, Wait: *wait}
	switch {
	case *key != "":
		k, err := crypto.HexToECDSA(strings.TrimPrefix(*key, "0x"))
		if err != nil {
			fmt.Fprintln(stderr, "nodegate-bench seed: --key:", err)
			return 2
		}
		cfg.Key = k
	case *account < 0 || *account > 9:
		fmt.Fprintln(stderr, "nodegate-bench seed: --account wants 0..9")
		return 2
	default:
		cfg.Key = evmnode.DevAccounts(*account + 1)[*account].Key
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := bench.Seed(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "nodegate-bench seed:", err)
		return 1
	}
	var b strings.Builder
	for _, h := range res.Hashes {
		b.WriteString(h.Hex())
		b.WriteByte('\n')
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(stderr, "nodegate-bench seed:", err)
		return 1
	}
	fmt.Fprintf(stdout, "seeded %d transfers (hashes in %s)\ncontract %s (eth_call returns %s)\n", len(res.Hashes), *out, res.Contract.Hex(), bench.ViewAnswer)
	return 0
}
