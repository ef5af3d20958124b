package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
)

const serveHeader = `Usage: nodegate [serve] [flags]

Runs the service: POST {base}/v3/<key>, WebSocket {base}/ws/v3/<key>. Flags override the config file; with neither,
nodegate runs in front of an embedded go-ethereum dev chain.

Flags:
`

// serveFlags are the command-line settings of `nodegate serve`.
type serveFlags struct {
	configPath, listen, adminListen, chain, upstream, dataDir string
	starknetListen                                            string
	blockTime                                                 time.Duration
	apiKeys                                                   stringList
	tlsCert, tlsKey                                           string
	tlsSelfSigned                                             bool
	// obs are the logging flags (observability.go).
	obs obsFlags
	// set are the flags given on the command line.
	set map[string]bool
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.configPath, "config", "", "YAML config `file` (strict: unknown fields are errors; ${ENV} is expanded)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8545", "client listener `address` (host:port)")
	fs.StringVar(&f.starknetListen, "starknet-listen", config.DefaultStarknetListen, "the embedded Starknet devnet's own listener `address` (host:port); empty turns it off")
	fs.StringVar(&f.adminListen, "admin-listen", "127.0.0.1:8546", "admin API `address` (host:port; served only when an admin token is configured; \"\" disables)")
	fs.StringVar(&f.chain, "chain", "", "import genesis.json + chain.rlp from `dir` (and apply headfcu.json if present) instead of the dev chain")
	fs.DurationVar(&f.blockTime, "block-time", 0, "dev chain block `period` (e.g. 2s); 0 seals one block per transaction")
	fs.StringVar(&f.upstream, "upstream", "", "forward to an existing node at this http(s):// or ws(s):// `url` instead of the embedded node")
	fs.StringVar(&f.dataDir, "data-dir", "./nodegate-data", "`dir` where nodegate keeps its files")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS and WSS with this PEM certificate chain `file` (with --tls-key; reloaded on SIGHUP or change)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.BoolVar(&f.tlsSelfSigned, "tls-self-signed", false, "serve HTTPS and WSS with a certificate for 127.0.0.1/localhost issued by a local CA kept in <data-dir>/tls/ca.pem (local use; trust the CA once)")
	fs.Var(&f.apiKeys, "api-key", "accept this `key` (32 lowercase hex characters); repeatable. Without any, a key is generated and printed")
}

// apply overlays the flags that were given onto cfg (serveFlagFields).
func (f *serveFlags) apply(cfg *config.Config, set map[string]bool) {
	for _, ff := range serveFlagFields {
		if set[ff.flag] {
			ff.set(cfg, f)
		}
	}
	cfg.APIKeys = append(cfg.APIKeys, f.apiKeys...)
}

// loadServeConfig parses the flags and loads the config they name. The
// returned flags read the same file again with the same flags on top
// (for SIGHUP).
func loadServeConfig(args []string, stderr io.Writer) (config.Config, *serveFlags, error) {
	f := &serveFlags{}
	fs := newFlagSet("serve")
	f.register(fs)
	f.obs.register(fs)
	if err := parseFlags(fs, serveHeader, args, stderr); err != nil {
		return config.Config{}, nil, err
	}
	if fs.NArg() > 0 {
		return config.Config{}, nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	f.set = setFlags(fs)
	cfg, err := f.load()
	return cfg, f, err
}

// load reads the config file (or the defaults) with the flags on top.
func (f *serveFlags) load() (config.Config, error) {
	cfg := config.Defaults()
	if f.configPath != "" {
		var err error
		if cfg, err = config.Load(f.configPath); err != nil {
			return cfg, err
		}
	}
	f.apply(&cfg, f.set)
	if err := cfg.Validate(); err != nil {
		return cfg, nameFlags(err, f.set)
	}
	return cfg, nil
}

// keysCommand is the `nodegate keys SUB` invocation that reaches the key
// store of this server.
func (f *serveFlags) keysCommand(sub string) string {
	cmd := selfCommand() + " keys " + sub
	if f.configPath != "" {
		cmd += " --config " + f.configPath
	}
	if f.set["data-dir"] {
		cmd += " --data-dir " + f.dataDir
	}
	return cmd
}

func runServe(args []string, stdout, stderr io.Writer) int {
	cfg, flags, err := loadServeConfig(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "nodegate:", err)
		return 2
	}
	// SIGHUP is caught from the start: its default action ends the process.
	// A stop signal during start abandons it.
	caught := make(chan os.Signal, 4)
	signal.Notify(caught, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(caught)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 4)
	go func() {
		for sig := range caught {
			if sig != syscall.SIGHUP {
				cancel()
			}
			sigs <- sig
		}
	}()
	if stopProfile, err := startCPUProfile(); err != nil {
		fmt.Fprintln(stderr, "nodegate:", err)
		return 1
	} else {
		defer stopProfile()
	}
	setDefaultLogger(cfg.Log)
	svc, err := service.StartAnnouncing(ctx, cfg, announceFirstKey(stdout))
	if err != nil {
		fmt.Fprintln(stderr, "nodegate:", err)
		return 1
	}
	level := setLogLevel(nil, cfg.Log)
	printBanner(stdout, svc, flags.keysCommand)
	if ctx.Err() == nil {
		for sig := range sigs {
			if sig != syscall.SIGHUP {
				break
			}
			reload(svc, flags, level)
		}
	}
	return shutdown(svc, sigs, stdout, stderr)
}

// reload re-reads the config file on SIGHUP; an invalid file or a change
// that needs a restart is logged and the running config kept.
func reload(svc *service.Service, flags *serveFlags, level *slog.LevelVar) {
	next, err := flags.load()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = svc.Reload(ctx, next)
		cancel()
	}
	if err != nil {
		slog.Error("SIGHUP: configuration NOT reloaded, the running one is kept", "config", flags.configPath, "err", err)
		return
	}
	setLogLevel(level, next.Log)
}

// shutdown drains: /ready 503 at once, the listeners keep serving for
// shutdown.drain_delay (a second signal cuts it short), then until they
// had no request for shutdown.drain_quiet, then stop accepting; that
// wait and the calls in flight share shutdown.timeout; WebSockets are closed
// with 1001; usage records are flushed.
func shutdown(svc *service.Service, sigs <-chan os.Signal, stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, "nodegate: draining")
	svc.Drain()
	if d := svc.DrainDelay(); d > 0 {
		t := time.NewTimer(d)
	wait:
		for {
			select {
			case <-t.C:
				break wait
			case sig := <-sigs:
				if sig != syscall.SIGHUP {
					break wait
				}
			}
		}
		t.Stop()
	}
	// The listeners close once they were quiet for drain_quiet (a balancer
	// slower than the delay has stopped sending by then); that wait and
	// the calls in flight share shutdown.timeout.
	ctx, cancel := context.WithTimeout(context.Background(), svc.ShutdownTimeout())
	defer cancel()
	quiet, endQuiet := context.WithCancel(ctx)
	go func() { // a second signal cuts the wait short too
		for {
			select {
			case sig := <-sigs:
				if sig != syscall.SIGHUP {
					endQuiet()
					return
				}
			case <-quiet.Done():
				return
			}
		}
	}()
	svc.Quiesce(quiet)
	endQuiet()
	fmt.Fprintln(stdout, "nodegate: shutting down")
	if err := svc.Close(ctx); err != nil {
		fmt.Fprintln(stderr, "nodegate: shutdown:", err)
		return 1
	}
	fmt.Fprintln(stdout, "nodegate: stopped")
	return 0
}

// selfCommand is how a shell runs this program again: "go run
// ./cmd/nodegate" when go run built it (its binary lives in a temporary or
// cache directory that go run may remove), its name when PATH finds this
// binary by that name, else its path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "nodegate"
	}
	if builtByGoRun(exe) {
		return "go run ./cmd/nodegate"
	}
	name := filepath.Base(exe)
	if found, err := exec.LookPath(name); err == nil && sameFile(found, exe) {
		return name
	}
	return exe
}

// builtByGoRun reports whether exe is a go run binary: in a go-build
// temporary directory, or in the Go build cache, where go run keeps what
// it builds since Go 1.24 (<cache>/<2 hex digits>/<hash>-d/<name>, the
// cache being wherever GOCACHE or go env -w put it).
func builtByGoRun(exe string) bool {
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return true
	}
	dir := filepath.Dir(exe)
	if shard := filepath.Base(filepath.Dir(dir)); strings.HasSuffix(dir, "-d") && len(shard) == 2 && strings.Trim(shard, "0123456789abcdef") == "" {
		return true
	}
	caches := []string{os.Getenv("GOCACHE")}
	if dir, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(dir, "go-build"))
	}
	for _, c := range caches {
		if c != "" && strings.HasPrefix(exe, c+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
