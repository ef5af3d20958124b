package config

import (
	"fmt"
	"net/url"
	"time"
)

// Network is one chain behind nodegate.
type Network struct {
	// Name identifies the network in logs, metrics and key settings.
	Name string `yaml:"name"`
	// Family is evm (default) or starknet.
	Family string `yaml:"family"`
	// Upstreams are the network's nodes: "embedded", http(s):// or ws(s):// URLs.
	Upstreams []Upstream `yaml:"upstreams"`
	// Partners answer failover-eligible methods for plans that allow it
	// when no upstream can.
	Partners []Partner `yaml:"partners"`
	// Pool tunes selection, retries and health checks.
	Pool Pool `yaml:"pool"`
	// FailoverMethods overrides the methods eligible for partner failover
	// (default: SPEC.md's eth_getTransactionByBlockHashAndIndex,
	// eth_getTransactionReceipt, eth_call).
	FailoverMethods []string `yaml:"failover_methods"`
}

// Upstream is one node of a network.
type Upstream struct {
	Name     string `yaml:"name"`
	URL      string `yaml:"url"`
	Weight   int    `yaml:"weight"`   // share among equals; default 1
	Priority int    `yaml:"priority"` // lower first; higher tiers serve only when lower ones cannot
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
	RetryBudget    time.Duration `yaml:"retry_budget"`    // time for all tries of a call (15s)
	AttemptTimeout time.Duration `yaml:"attempt_timeout"` // one try (10s)
	FailThreshold  int           `yaml:"fail_threshold"`  // consecutive faults that take a node out (1)
	HeadInterval   time.Duration `yaml:"head_interval"`   // head poll period of a healthy node (1s)
	ProbeInterval  time.Duration `yaml:"probe_interval"`  // probe period of a node that is out (250ms)
	MaxLag         uint64        `yaml:"max_lag"`         // blocks behind the best head still chosen (0)
	LagMemory      time.Duration `yaml:"lag_memory"`      // how long the highest head seen keeps lagging nodes out (30s)
}

// EmbeddedURL is the upstream URL of the in-process node.
const EmbeddedURL = "embedded"

// EffectiveNetworks returns the configured networks, or the default one:
// a single upstream, `upstream` when set, else the embedded node.
func (c *Config) EffectiveNetworks() []Network {
	if len(c.Networks) > 0 {
		return c.Networks
	}
	u := c.Upstream
	if u == "" {
		u = EmbeddedURL
	}
	return []Network{{Name: "default", Family: "evm", Upstreams: []Upstream{{Name: nameOf(u), URL: u}}}}
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

func (n *Network) validate(path string, bad func(path, format string, a ...any)) {
	if n.Name == "" {
		bad(path+".name", "must not be empty")
	}
	switch n.Family {
	case "", "evm":
	default:
		bad(path+".family", "want evm, got %q", n.Family)
	}
	if len(n.Upstreams) == 0 {
		bad(path+".upstreams", "a network needs at least one upstream")
	}
	embedded := 0
	for i, u := range n.Upstreams {
		p := fmt.Sprintf("%s.upstreams[%d]", path, i)
		if u.URL == EmbeddedURL {
			embedded++
		} else if !httpURL(u.URL) {
			bad(p+".url", "want %q or an http(s):// URL, got %q", EmbeddedURL, redactURL(u.URL))
		}
		if u.Weight < 0 {
			bad(p+".weight", "must not be negative")
		}
	}
	if embedded > 1 {
		bad(path+".upstreams", "at most one embedded upstream per network")
	}
	for i, pt := range n.Partners {
		if !httpURL(pt.URL) {
			bad(fmt.Sprintf("%s.partners[%d].url", path, i), "want an http(s):// URL, got %q", redactURL(pt.URL))
		}
	}
	if n.Pool.MaxAttempts < 0 || n.Pool.FailThreshold < 0 {
		bad(path+".pool", "counts must not be negative")
	}
	for _, d := range []time.Duration{n.Pool.RetryBudget, n.Pool.AttemptTimeout, n.Pool.HeadInterval, n.Pool.ProbeInterval} {
		if d < 0 {
			bad(path+".pool", "durations must not be negative")
			break
		}
	}
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
