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
	configPath, listen, chain, upstream, dataDir string
	blockTime                                    time.Duration
	apiKeys                                      stringList
	tlsCert, tlsKey                              string
	tlsSelfSigned                                bool
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.configPath, "config", "", "YAML config `file` (strict: unknown fields are errors; ${ENV} is expanded)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8545", "client listener `address` (host:port)")
	fs.StringVar(&f.chain, "chain", "", "import genesis.json + chain.rlp from `dir` (and apply headfcu.json if present) instead of the dev chain")
	fs.DurationVar(&f.blockTime, "block-time", 0, "dev chain block `period` (e.g. 2s); 0 seals one block per transaction")
	fs.StringVar(&f.upstream, "upstream", "", "forward to an existing node at this http(s):// or ws(s):// `url` instead of the embedded node")
	fs.StringVar(&f.dataDir, "data-dir", "./nodegate-data", "`dir` where nodegate keeps its files")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS and WSS with this PEM certificate chain `file` (with --tls-key; reloaded on SIGHUP or change)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.BoolVar(&f.tlsSelfSigned, "tls-self-signed", false, "serve HTTPS and WSS with a generated certificate for 127.0.0.1/localhost (local use; prints its fingerprint)")
	fs.Var(&f.apiKeys, "api-key", "accept this `key` (32 lowercase hex characters); repeatable. Without any, a key is generated and printed")
}

// apply overlays the flags that were given onto cfg.
func (f *serveFlags) apply(cfg *config.Config, set map[string]bool) {
	if set["listen"] {
		cfg.Listen = f.listen
	}
	if set["data-dir"] {
		cfg.DataDir = f.dataDir
	}
	if set["chain"] {
		cfg.Node.ChainDir = f.chain
	}
	if set["block-time"] {
		cfg.Node.BlockTime = f.blockTime
	}
	if set["upstream"] {
		cfg.Upstream = f.upstream
	}
	if set["tls-cert"] {
		cfg.TLS.Cert = f.tlsCert
	}
	if set["tls-key"] {
		cfg.TLS.Key = f.tlsKey
	}
	if set["tls-self-signed"] {
		cfg.TLS.SelfSigned = f.tlsSelfSigned
	}
	cfg.APIKeys = append(cfg.APIKeys, f.apiKeys...)
}

func loadServeConfig(args []string, stderr io.Writer) (config.Config, error) {
	var f serveFlags
	fs := newFlagSet("serve", serveHeader, stderr)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return config.Config{}, err
	}
	if fs.NArg() > 0 {
		return config.Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg := config.Defaults()
	if f.configPath != "" {
		var err error
		if cfg, err = config.Load(f.configPath); err != nil {
			return cfg, err
		}
	}
	f.apply(&cfg, setFlags(fs))
	return cfg, cfg.Validate()
}

func runServe(args []string, stdout, stderr io.Writer) int {
	cfg, err := loadServeConfig(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "nodegate:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if stopProfile, err := startCPUProfile(); err != nil {
		fmt.Fprintln(stderr, "nodegate:", err)
		return 1
	} else {
		defer stopProfile()
	}
	svc, err := service.StartAnnouncing(ctx, cfg, announceFirstKey(stdout))
	if err != nil {
		fmt.Fprintln(stderr, "nodegate:", err)
		return 1
	}
	printBanner(stdout, svc)
	<-ctx.Done()
	fmt.Fprintln(stdout, "nodegate: shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := svc.Close(shutdown); err != nil {
		fmt.Fprintln(stderr, "nodegate: shutdown:", err)
		return 1
	}
	return 0
}
