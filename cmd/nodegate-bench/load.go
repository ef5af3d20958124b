package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
)

const runHeader = `Usage: nodegate-bench run --url URL [--compare URL2] [flags]

Drives a method mix at a fixed concurrency over keep-alive HTTP connections and
prints requests/s, calls/s, latency p50/p90/p99/p99.9, error counts and (with --pid)
the CPU a process spent per call. With --compare, the same load then runs against
URL2 in the same invocation and the ratios first/second are printed.

Flags:
`

type loadFlags struct {
	url, compare, mix, hashes, pidFile, comparePIDFile string
	host                                               string
	to, from, data                                     string
	concurrency, requests, batch, pid, comparePID      int
	duration, warmup, timeout                          time.Duration
	json                                               bool
}

func (f *loadFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "url", "", "JSON-RPC `URL` to load (e.g. http://127.0.0.1:8545/v3/KEY)")
	fs.StringVar(&f.host, "host", "", "`Host` header of every request, to reach a network by host name (e.g. starknet.localhost; applies to --url only)")
	fs.StringVar(&f.compare, "compare", "", "run the same load against this `URL` right after (e.g. the upstream directly) and print the ratios")
	fs.StringVar(&f.mix, "method-mix", "eth_getTransactionByHash=100", "`methods` and weights, e.g. eth_getTransactionByHash=80,eth_call=20")
	fs.IntVar(&f.concurrency, "concurrency", 32, "concurrent requests (one keep-alive connection each)")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "how long to measure")
	fs.IntVar(&f.requests, "requests", 0, "measure this many HTTP requests instead of a duration")
	fs.IntVar(&f.batch, "batch", 1, "calls per HTTP request (a JSON-RPC batch when above 1)")
	fs.DurationVar(&f.warmup, "warmup", time.Second, "unmeasured warm-up before each run")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "timeout of one HTTP request")
	fs.IntVar(&f.pid, "pid", 0, "measure this process's user+system CPU over the first run (Linux /proc)")
	fs.StringVar(&f.pidFile, "pid-file", "", "read the --pid from this `file`")
	fs.IntVar(&f.comparePID, "compare-pid", 0, "measure this process's CPU over the --compare run")
	fs.StringVar(&f.comparePIDFile, "compare-pid-file", "", "read the --compare-pid from this `file`")
	fs.StringVar(&f.hashes, "hashes", "", "`file` of transaction hashes (one per line) to cycle through; default: the static upstream's 4,096 transaction hashes")
	fs.StringVar(&f.to, "call-to", bench.DefaultCallTo, "`address` called by eth_call/eth_estimateGas (and read by eth_getStorageAt)")
	fs.StringVar(&f.from, "call-from", bench.DefaultCallFrom, "`address` sending eth_call/eth_estimateGas")
	fs.StringVar(&f.data, "call-data", bench.DefaultCallData, "`hex` call data of eth_call/eth_estimateGas")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON")
}

func (f *loadFlags) configs() ([]bench.Config, error) {
	if f.url == "" {
		return nil, errors.New("--url is required")
	}
	mix, err := bench.ParseMix(f.mix)
	if err != nil {
		return nil, err
	}
	t := bench.Target{CallTo: f.to, CallFrom: f.from, CallData: f.data}
	if f.hashes != "" {
		if t.Hashes, err = bench.ReadHashes(f.hashes); err != nil {
			return nil, err
		}
	}
	pid, err := pidOf(f.pid, f.pidFile)
	if err != nil {
		return nil, err
	}
	base := bench.Config{URL: f.url, Host: f.host, Mix: mix, Target: t, Concurrency: f.concurrency, Duration: f.duration,
		Requests: f.requests, Batch: f.batch, Warmup: f.warmup, Timeout: f.timeout, PID: pid}
	out := []bench.Config{base}
	if f.compare != "" {
		second := base
		second.URL, second.Host = f.compare, ""
		if second.PID, err = pidOf(f.comparePID, f.comparePIDFile); err != nil {
			return nil, err
		}
		out = append(out, second)
	}
	return out, nil
}

func pidOf(pid int, file string) (int, error) {
	if file == "" {
		return pid, nil
	}
	if pid != 0 {
		return 0, errors.New("give a pid or a pid file, not both")
	}
	return bench.ReadPIDFile(file)
}

func runLoad(args []string, stdout, stderr io.Writer) int {
	var f loadFlags
	fs := newFlagSet("run", runHeader, stderr)
	f.register(fs)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	cfgs, err := f.configs()
	if err != nil {
		fmt.Fprintln(stderr, "nodegate-bench run:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var results []*bench.Result
	for _, cfg := range cfgs {
		r, err := bench.Run(ctx, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "nodegate-bench run:", err)
			return 1
		}
		results = append(results, r)
	}
	c := bench.Compare(results...)
	if f.json {
		if err := c.WriteJSON(stdout); err != nil {
			fmt.Fprintln(stderr, "nodegate-bench run:", err)
			return 1
		}
	} else {
		c.WriteText(stdout)
	}
	for _, r := range results {
		if r.Requests == 0 {
			return 1 // nothing succeeded: make scripts notice
		}
	}
	return 0
}
