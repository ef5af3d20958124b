package config

import (
	"fmt"
	"os"
	"time"

	"github.com/nodegate/nodegate/internal/plan"
)

// Config is the whole configuration. Every field is documented in
// README.md ("Configuration"); keep the two in step.
type Config struct {
	// Listen is the client listener's address (host:port).
	Listen string `yaml:"listen"`
	// DataDir is where nodegate keeps its files.
	DataDir string `yaml:"data_dir"`
	// APIKeys are accepted keys (32 lowercase hex characters each).
	APIKeys []string `yaml:"api_keys"`
	// Limits bound what clients control.
	Limits Limits `yaml:"limits"`
	// Upstream, when set, is a node's http(s):// or ws(s):// URL to
	// forward to instead of the embedded node.
	Upstream string `yaml:"upstream"`
	// Node configures the embedded node.
	Node Node `yaml:"node"`
	// Networks are the chains served; empty means one default network
	// whose only upstream is `upstream` or the embedded node.
	Networks []Network `yaml:"networks"`
	// NoStarknet leaves the embedded Starknet devnet out of the default
	// networks (it is started only when nothing else is configured).
	NoStarknet bool `yaml:"no_starknet"`
	// StarknetListen is the embedded devnet's own listener (host:port) on
	// the default networks; empty leaves it reachable by Host only.
	StarknetListen string `yaml:"starknet_listen"`
	// DatabaseURL, when set, keeps keys in PostgreSQL (postgres://…)
	// instead of the SQLite file in DataDir. Share it across replicas.
	DatabaseURL string `yaml:"database_url"`
	// KeyRefresh is how often each replica checks the key store for
	// changes (a change reaches every replica within this interval).
	KeyRefresh time.Duration `yaml:"key_refresh"`
	// Plans are the key plans by name; a plan given here replaces the
	// default plan of that name whole.
	Plans map[string]Plan `yaml:"plans"`
	// Admin is the management listener (keys API, metrics).
	Admin Admin `yaml:"admin"`
	// TLS serves HTTPS and WSS on the client listener (docs/websocket.md).
	TLS TLS `yaml:"tls"`
	// WebSocket bounds /ws/v3/<key> connections (docs/websocket.md).
	WebSocket WebSocket `yaml:"websocket"`
	// RateLimit configures where rate limits are kept (see ratelimit.go).
	RateLimit RateLimit `yaml:"rate_limit"`
	// Shutdown is the drain on SIGTERM/SIGINT (shutdown.go).
	Shutdown Shutdown `yaml:"shutdown"`
	// Credits are method costs in credits, over the defaults of the
	// method table (docs/ratelimit.md).
	Credits map[string]int `yaml:"credits"`
	// Accounts are customer accounts and the customer dashboard
	// (accounts.go, docs/dashboard.md).
	Accounts Accounts `yaml:"accounts"`
	// Metrics and Log: observability.go (docs/observability.md); the
	// log level is applied again on SIGHUP.
	Metrics Metrics `yaml:"metrics"`
	Log     Log     `yaml:"log"`
	// Tracing: observability.go (docs/observability.md); read at start.
	Tracing Tracing `yaml:"tracing"`
	// TrustedProxies are the addresses and CIDRs of the hops in front of
	// nodegate whose X-Forwarded-For it believes when it decides a
	// client's address for a key's address allowlist (keysecurity.go,
	// docs/deploy.md).
	TrustedProxies []string `yaml:"trusted_proxies"`
	// JWT configures keys' JSON Web Tokens (keysecurity.go, docs/keys.md).
	JWT JWT `yaml:"jwt"`
}

// Plan is what a key's plan grants: the one plan type, internal/plan's
// (docs/keys.md). A configuration names it here so that a plans: section
// reads as part of it.
type Plan = plan.Plan

// Admin configures the admin HTTP listener.
type Admin struct {
	// Listen is host:port; empty disables the admin listener.
	Listen string `yaml:"listen"`
	// Token is the bearer token; empty falls back to $NODEGATE_ADMIN_TOKEN,
	// and with neither the admin API refuses every request.
	Token string `yaml:"token"`
}

// Limits bound request sizes and, per method, what one call may cost.
type Limits struct {
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	MaxBatch     int   `yaml:"max_batch"`
	// WriteTimeout is how long writing one piece of an answer may wait
	// for a client that does not read (0 means 30s).
	WriteTimeout time.Duration `yaml:"write_timeout"`
	// Connections bound the client listeners' connections (connections.go).
	Connections Connections `yaml:"connections"`
	// MethodLimits are the network-wide per-method limits; a plan's own
	// (plans.<name>.get_logs_max_results, …) override them (limits.go).
	plan.MethodLimits `yaml:",inline"`
	// Plans is the older spelling of the plans' own method limits, kept so
	// that existing files work: PlanSet folds it into plans: (limits.go).
	Plans PlanLimits `yaml:"plans"`
}

// Node configures the embedded go-ethereum node.
type Node struct {
	// ChainDir imports genesis.json + chain.rlp (+ headfcu.json) instead of a dev chain.
	ChainDir string `yaml:"chain_dir"`
	// BlockTime is the dev chain's block period; 0 seals a block per transaction.
	BlockTime time.Duration `yaml:"block_time"`
	// MaxChainBytes bounds what the blocks made after the start may hold
	// (transactions, logs, an estimate of the state they write): past it
	// the node takes no more transactions (docs/limits.md). 0 means
	// 64 MiB; -1, no bound.
	MaxChainBytes int64 `yaml:"max_chain_bytes"`
	// MaxChainBytesPerAccount is each account's share of MaxChainBytes (a
	// dashboard account, an operator key, a keyless client's address):
	// past it that account's transactions are refused while the others'
	// go on (docs/limits.md). 0 means an eighth of MaxChainBytes; -1, no
	// share.
	MaxChainBytesPerAccount int64 `yaml:"max_chain_bytes_per_account"`
}

// Defaults are the embedded default's settings.
func Defaults() Config {
	return Config{
		Listen: "127.0.0.1:8545",
		// The devnet's own port: Node's fetch cannot send Host: starknet.localhost.
		StarknetListen: DefaultStarknetListen,
		DataDir:        "./nodegate-data",
		Limits:         Limits{MaxBodyBytes: 5 << 20, MaxBatch: 1000},
		// Keys: a change reaches every replica within 1 s.
		KeyRefresh: 250 * time.Millisecond,
		Plans:      defaultPlans(),
		Admin:      Admin{Listen: "127.0.0.1:8546"},
		Shutdown:   Shutdown{Timeout: 15 * time.Second, DrainQuiet: time.Second},
		Log:        Log{Level: "info"},
	}
}

// Load reads a YAML file over the defaults. ${NAME} is replaced by the
// environment variable NAME before decoding (for secrets).
func Load(path string) (Config, error) {
	cfg := Defaults()
	raw, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	if err := Decode(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Ephemeral is the embedded default on OS-picked loopback ports with its
// files in dataDir: what tests and throwaway instances use.
func Ephemeral(dataDir string) Config {
	c := Defaults()
	c.Listen = "127.0.0.1:0"
	c.Admin.Listen = "127.0.0.1:0"
	c.StarknetListen = "127.0.0.1:0"
	c.DataDir = dataDir
	return c
}

// DefaultStarknetListen is the embedded Starknet devnet's own listener
// unless starknet_listen says otherwise.
const DefaultStarknetListen = "127.0.0.1:8547"
