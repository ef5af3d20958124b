package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
)

const subscribeHeader = `Usage: nodegate-bench subscribe --url WS --subscribers N [--kind newHeads|logs] [flags]

Opens N WebSockets, subscribes each once, and times every notification: per head
(per block for logs) the spread from the first subscriber's copy to the last one's
(p50/p99/max), copies missed or duplicated, and (with --pid) the server's CPU per
notification delivered and its RSS per subscribed socket.

Flags:
`

func runSubscribe(args []string, stdout, stderr io.Writer) int {
	var (
		cfg      bench.SubscribeConfig
		pidFile  string
		jsonOut  bool
		fs       = newFlagSet("subscribe", subscribeHeader, stderr)
		duration = fs.Duration("duration", 30*time.Second, "how long to measure (heads first seen within it count)")
	)
	fs.StringVar(&cfg.URL, "url", "", "WebSocket `URL`, e.g. ws://127.0.0.1:8545/ws/v3/KEY")
	fs.IntVar(&cfg.Subscribers, "subscribers", 1000, "connections, one subscription each")
	fs.StringVar(&cfg.Kind, "kind", bench.KindNewHeads, "subscription `kind`: newHeads or logs")
	fs.StringVar(&cfg.Filter, "filter", "", "logs filter `object`, e.g. {\"address\":\"0x…\"} (default: all logs)")
	fs.DurationVar(&cfg.Settle, "settle", 3*time.Second, "wait after the last subscription before measuring")
	fs.DurationVar(&cfg.Grace, "grace", 5*time.Second, "how long after --duration the last heads' copies still count")
	fs.IntVar(&cfg.DialConcurrency, "dial-concurrency", 64, "connections opened at once")
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process id: its CPU per notification and RSS (Linux /proc)")
	fs.StringVar(&pidFile, "pid-file", "", "read the --pid from this `file`")
	fs.DurationVar(&cfg.Baseline, "baseline", 5*time.Second, "with --pid: measure the server's idle CPU this long first, to report CPU per notification net of it (0: don't)")
	fs.BoolVar(&jsonOut, "json", false, "print the result as JSON")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	cfg.Duration = *duration
	pid, err := pidOf(cfg.PID, pidFile)
	if err != nil {
		fmt.Fprintln(stderr, "nodegate-bench subscribe:", err)
		return 2
	}
	cfg.PID = pid
	if cfg.URL == "" {
		fmt.Fprintln(stderr, "nodegate-bench subscribe: --url is required")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	r, err := bench.Subscribe(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "nodegate-bench subscribe:", err)
		return 1
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "nodegate-bench subscribe:", err)
			return 1
		}
	} else {
		r.WriteText(stdout)
	}
	if r.Heads == 0 {
		return 1 // nothing measured: make scripts notice
	}
	return 0
}
