package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/ident"
)

// Network is one chain behind nodegate.
type Network struct {
	// Name identifies the network in logs, metrics and key settings.
	Name string `yaml:"name"`
	// Family is evm (default) or starknet (internal/familykind.Names).
	Family string `yaml:"family"`
	// ChainID is the chain's id, when known (informational; shown at start).
	ChainID uint64 `yaml:"chain_id"`
	// Hosts are the host names that select this network on the main
	// listener (name-based routing behind DNS); "*.example.com" matches
	// any subdomain. A network with neither hosts nor listen is the main
	// listener's default (at most one).
	Hosts []string `yaml:"hosts"`
	// Listen, when set, gives the network a listener of its own.
	Listen string `yaml:"listen"`
	// Starknet configures a starknet network.
	Starknet Starknet `yaml:"starknet"`
	// Upstreams are the network's nodes: "embedded", http(s):// or ws(s):// URLs.
	Upstreams []Upstream `yaml:"upstreams"`
	// Partners answer failover-eligible methods for plans that allow it
	// when no upstream can.
	Partners []Partner `yaml:"partners"`
	// Pool tunes selection, retries and health checks.
	Pool Pool `yaml:"pool"`
	// FailoverMethods overrides the methods eligible for partner failover
	// (default: docs/spec.md's eth_getTransactionByBlockHashAndIndex,
	// eth_getTransactionReceipt, eth_call).
	FailoverMethods []string `yaml:"failover_methods"`
	// IdempotentMethods are methods the method table does not list that
	// may still be retried on another upstream and sent in upstream
	// batches (reads this network's nodes serve); every other unlisted
	// method is sent once, alone (docs/pools.md).
	IdempotentMethods []string `yaml:"idempotent_methods"`
	// Cache keeps answers that can no longer change (docs/cache.md).
	Cache Cache `yaml:"cache"`
	// Verify turns the checks of answers on or off (docs/pools.md).
	Verify Verify `yaml:"verify"`
}

// Cache configures a network's cache of final answers.
type Cache struct {
	// Enabled turns the cache on or off (default on for EVM networks).
	Enabled *bool `yaml:"enabled"`
	// MaxBytes is the memory budget (default 64 MB).
	MaxBytes int64 `yaml:"max_bytes"`
	// Methods limits caching to these methods (default: every cacheable one).
	Methods []string `yaml:"methods"`
	// RedisURL, when set, adds a Redis cache shared by a fleet.
	RedisURL string `yaml:"redis_url"`
	// RedisTTL is how long an entry lives in Redis (default 24h).
	RedisTTL time.Duration `yaml:"redis_ttl"`
}

// On reports whether the cache is enabled (default: yes).
func (c Cache) On() bool { return c.Enabled == nil || *c.Enabled }

// Starknet configures the rollup family on one network.
type Starknet struct {
	// PendingMode is how rollup_pendingTransactions is answered: auto
	// (detect with starknet_specVersion), forward (the node serves
	// starknet_pendingTransactions, RPC <= 0.4) or block (map
	// starknet_getBlockWithTxs "pending", RPC >= 0.5).
	PendingMode string `yaml:"pending_mode"`
	// Devnet configures the embedded devnet (upstream url "embedded").
	Devnet Devnet `yaml:"devnet"`
}

// Devnet configures the embedded Starknet devnet.
type Devnet struct {
	ChainID    string        `yaml:"chain_id"`    // short string, default SN_DEVNET
	BlockTime  time.Duration `yaml:"block_time"`  // pending transactions move into a block this often; 0: only on devnet_createBlock
	MaxPending int           `yaml:"max_pending"` // pending pool size (10000)
	KeepBlocks int           `yaml:"keep_blocks"` // recent blocks kept (1024)
	// Byte budgets of what clients make the devnet keep (docs/starknet.md):
	MaxPendingBytes int `yaml:"max_pending_bytes"` // the pending transactions' bytes (32 MiB)
	KeepBytes       int `yaml:"keep_bytes"`        // the kept blocks' transactions' bytes (128 MiB)
	MaxAccounts     int `yaml:"max_accounts"`      // senders whose nonces are kept (100000)
}

// Upstream is one node of a network.
type Upstream struct {
	Name     string `yaml:"name"`
	URL      string `yaml:"url"`
	Weight   int    `yaml:"weight"`   // share among equals; default 1
	Priority int    `yaml:"priority"` // lower first; higher tiers serve only when lower ones cannot
	// BatchSize is how many calls of a client batch go to this upstream in
	// one upstream batch: 0 means 100, 1 sends every call alone.
	BatchSize int `yaml:"batch_size"`
	// Archive, StateFrom and LogsFrom are the operator's word on how far
	// back the node serves (floors.go; docs/pools.md).
	Archive   bool    `yaml:"archive"`
	StateFrom *uint64 `yaml:"state_from"`
	LogsFrom  *uint64 `yaml:"logs_from"`
}

// Partner is another provider's endpoint, used only for failover.
type Partner struct {
	Name string `yaml:"name"`
	// URL may carry the partner's key in its path (use ${ENV}).
	URL string `yaml:"url"`
	// Headers are sent with every request (e.g. Authorization: Bearer ${TOKEN}).
	Headers map[string]string `yaml:"headers"`
}

// Pool tunes a network's pool. Zero values mean the defaults.
type Pool struct {
	MaxAttempts    int           `yaml:"max_attempts"`    // tries per call, first included (3)
	RetryBudget    time.Duration `yaml:"retry_budget"`    // time for all tries of a call (30s)
	AttemptTimeout time.Duration `yaml:"attempt_timeout"` // one try (15s)
	FailThreshold  int           `yaml:"fail_threshold"`  // consecutive faults that take a node out (1)
	HeadInterval   time.Duration `yaml:"head_interval"`   // head poll period of a healthy node (1s)
	ProbeInterval  time.Duration `yaml:"probe_interval"`  // probe period of a node that is out (250ms)
	MaxLag         uint64        `yaml:"max_lag"`         // blocks behind the best head still chosen (0)
	LagMemory      time.Duration `yaml:"lag_memory"`      // how long the highest head seen keeps lagging nodes out (30s)
	// HeadWait bounds how long a call waits for a node to reach the block
	// it needs (a head already given to clients, after the node at it
	// died) before it is answered as unavailable (5s).
	HeadWait time.Duration `yaml:"head_wait"`
	// BroadcastWrites sends each signed transaction to every node in
	// service, not to one (default on; docs/pools.md).
	BroadcastWrites *bool `yaml:"broadcast_writes"`
	// MethodRecheck is how long a node that answered -32601 to a method
	// gets no more calls of it, before it is asked again (5m).
	MethodRecheck time.Duration `yaml:"method_recheck"`
	// FloorProbe is how often each node's state and logs floors are
	// probed again (5m; docs/pools.md).
	FloorProbe time.Duration `yaml:"floor_probe"`
	// Hedge tunes hedged reads (hedge.go, docs/pools.md).
	Hedge Hedge `yaml:"hedge"`
}

// Broadcasts reports whether signed transactions go to every node (default: yes).
func (p Pool) Broadcasts() bool { return p.BroadcastWrites == nil || *p.BroadcastWrites }

// EmbeddedURL is the upstream URL of the in-process node.
const EmbeddedURL = "embedded"

// StarknetLocalHost selects the embedded default's rollup network on the
// main listener (curl -H 'Host: starknet.localhost' …).
const StarknetLocalHost = "starknet.localhost"

// DefaultDevnetBlockTime is how long a transaction stays pending on the
// embedded default's devnet: short enough for a client polling for its
// receipt (starknet.js polls every 5 s).
const DefaultDevnetBlockTime = time.Second

// EffectiveNetworks returns the configured networks, or the defaults: an
// EVM network whose only upstream is `upstream` when set, else the
// embedded node; and, when everything is embedded, the embedded Starknet
// devnet as a second network reached by the host name starknet.localhost
// and on its own listener, starknet_listen.
func (c *Config) EffectiveNetworks() []Network {
	if len(c.Networks) > 0 {
		return c.Networks
	}
	u := c.Upstream
	if u == "" {
		u = EmbeddedURL
	}
	nets := []Network{{Name: "default", Family: familykind.EVM.Name, Upstreams: []Upstream{{Name: nameOf(u), URL: u}}}}
	if c.Upstream == "" && !c.NoStarknet {
		nets = append(nets, Network{Name: familykind.Starknet.Name, Family: familykind.Starknet.Name, Hosts: []string{StarknetLocalHost}, Listen: c.StarknetListen,
			Upstreams: []Upstream{{Name: EmbeddedURL, URL: EmbeddedURL}}, Starknet: Starknet{Devnet: Devnet{BlockTime: DefaultDevnetBlockTime}}})
	}
	return nets
}

func nameOf(rawURL string) string {
	if rawURL == EmbeddedURL {
		return EmbeddedURL
	}
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		return u.Host
	}
	return rawURL
}

// starknetSection is the key of Network.Starknet (its yaml tag,
// TestSectionsAreKinds), the section only a family whose
// familykind.Kind.Section names it may set.
var starknetSection = familykind.Starknet.Section

// sectionOwner is the name of the family whose section is key.
func sectionOwner(key string) string {
	for _, k := range familykind.All {
		if k.Section == key {
			return k.Name
		}
	}
	return ""
}

func (n *Network) validate(path string, bad func(path, format string, a ...any)) {
	if !ident.ValidIdentifier(n.Name) {
		bad(path+".name", "a network name is 1 to 64 lowercase letters, digits, - and _ (keys name networks by it), got %q", n.Name)
	}
	k, ok := familykind.Of(n.Family)
	if !ok {
		bad(path+".family", "want %s, got %q", strings.Join(familykind.Names(), " or "), n.Family)
	}
	if n.Starknet != (Starknet{}) && (!ok || k.Section != starknetSection) {
		bad(path+"."+starknetSection, "only for a network of family %s", sectionOwner(starknetSection))
	}
	switch n.Starknet.PendingMode {
	case "", "auto", "forward", "block":
	default:
		bad(path+"."+starknetSection+".pending_mode", "want auto, forward or block, got %q", n.Starknet.PendingMode)
	}
	for i, h := range n.Hosts {
		if !validHost(h) {
			bad(fmt.Sprintf("%s.hosts[%d]", path, i), "want a host name such as rpc.example.com or *.example.com, got %q", h)
		}
	}
	if n.Listen != "" {
		if _, _, err := net.SplitHostPort(n.Listen); err != nil {
			bad(path+".listen", "want host:port, got %q", n.Listen)
		}
	}
	if len(n.Upstreams) == 0 {
		bad(path+".upstreams", "a network needs at least one upstream")
	}
	embedded := 0
	for i, u := range n.Upstreams {
		p := fmt.Sprintf("%s.upstreams[%d]", path, i)
		if u.URL == EmbeddedURL {
			embedded++
		} else if !nodeURL(u.URL) {
			bad(p+".url", "want %q or an http(s):// or ws(s):// URL, got %q", EmbeddedURL, redactURL(u.URL))
		}
		if u.Weight < 0 {
			bad(p+".weight", "must not be negative")
		}
		if u.BatchSize < 0 || u.BatchSize > 10000 {
			bad(p+".batch_size", "want 0 (default 100) to 10000, got %d", u.BatchSize)
		}
		u.validateFloors(p, k, bad) // floors.go
	}
	if embedded > 1 {
		bad(path+".upstreams", "at most one embedded upstream per network")
	}
	for i, pt := range n.Partners {
		if !httpURL(pt.URL) {
			bad(fmt.Sprintf("%s.partners[%d].url", path, i), "want an http(s):// URL, got %q", redactURL(pt.URL))
		}
	}
	if n.Cache.MaxBytes < 0 || n.Cache.RedisTTL < 0 {
		bad(path+".cache", "max_bytes and redis_ttl must not be negative")
	}
	if n.Cache.RedisURL != "" {
		if u, err := url.Parse(n.Cache.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			bad(path+".cache.redis_url", "want redis://host:port/db or rediss://…")
		}
	}
	if n.Pool.MaxAttempts < 0 || n.Pool.FailThreshold < 0 {
		bad(path+".pool", "counts must not be negative")
	}
	for _, d := range []time.Duration{n.Pool.RetryBudget, n.Pool.AttemptTimeout, n.Pool.HeadInterval, n.Pool.ProbeInterval, n.Pool.HeadWait, n.Pool.MethodRecheck, n.Pool.FloorProbe} {
		if d < 0 {
			bad(path+".pool", "durations must not be negative")
			break
		}
	}
	n.Verify.validate(path, bad)
	n.Pool.Hedge.validate(path, bad)
}

func nodeURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && upstreamScheme(u.Scheme) && u.Host != ""
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// redactURL hides credentials and the path (which may hold a partner's key).
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		if len(s) > 12 {
			return s[:12] + "…"
		}
		return s
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// validHost accepts lowercase DNS names, optionally with a leading "*.".
func validHost(h string) bool {
	h = strings.TrimPrefix(h, "*.")
	if h == "" || len(h) > 253 || strings.ToLower(h) != h {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c == '-' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
				return false
			}
		}
	}
	return true
}

// validateNetworks checks what concerns several networks at once.
func (c *Config) validateNetworks(bad func(path, format string, a ...any)) {
	names := map[string]bool{}
	hosts := map[string]string{}
	listens := map[string]string{c.Listen: "listen"}
	defaults := 0
	embedded := map[string]string{}
	for i, n := range c.Networks {
		path := fmt.Sprintf("networks[%d]", i)
		if names[n.Name] {
			bad(path+".name", "%q is used by another network", n.Name)
		}
		names[n.Name] = true
		for _, h := range n.Hosts {
			if other, dup := hosts[h]; dup {
				bad(path+".hosts", "%q is also a host of network %s", h, other)
			}
			hosts[h] = n.Name
		}
		if n.Listen != "" && !strings.HasSuffix(n.Listen, ":0") { // port 0: the system picks distinct ports
			if other, dup := listens[n.Listen]; dup {
				bad(path+".listen", "%q is also used by %s", n.Listen, other)
			}
			listens[n.Listen] = path
		}
		if len(n.Hosts) == 0 && n.Listen == "" {
			defaults++
		}
		for _, u := range n.Upstreams {
			if u.URL != EmbeddedURL {
				continue
			}
			family, _ := familykind.Of(n.Family) // one embedded node per family, named or not
			if other, dup := embedded[family.Name]; dup {
				bad(path+".upstreams", "the embedded %s node already serves network %s (one per process)", family.Name, other)
			}
			embedded[family.Name] = n.Name
		}
	}
	if defaults > 1 {
		bad("networks", "%d networks have neither hosts nor listen; at most one may be the main listener's default", defaults)
	}
}

// validateStarknetListen checks starknet_listen: an address of its own
// (port 0 lets the system pick distinct ports).
func (c *Config) validateStarknetListen(bad func(path, format string, a ...any)) {
	if c.StarknetListen == "" {
		return
	}
	if _, _, err := net.SplitHostPort(c.StarknetListen); err != nil {
		bad("starknet_listen", "want host:port (or empty for none), got %q", c.StarknetListen)
	} else if !strings.HasSuffix(c.StarknetListen, ":0") && (c.StarknetListen == c.Listen || c.StarknetListen == c.Admin.Listen) {
		bad("starknet_listen", "%q is also used by listen or admin.listen", c.StarknetListen)
	}
}
