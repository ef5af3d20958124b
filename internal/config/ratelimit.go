package config

import (
	"net/url"
	"sort"
	"time"
)

// RateLimit configures the rate and daily credit limits' backend
// (docs/ratelimit.md). Limits themselves are the plans' and the keys'.
type RateLimit struct {
	// RedisURL (redis://[:password@]host:port/db, rediss:// for TLS) makes
	// every replica using it share one budget per key; empty keeps limits
	// in this process's memory.
	RedisURL string `yaml:"redis_url"`
	// RedisPrefix namespaces nodegate's Redis keys (default "nodegate").
	RedisPrefix string `yaml:"redis_prefix"`
	// RedisTimeout bounds one Redis round trip (default 100ms); past it a
	// request is decided on local limits.
	RedisTimeout time.Duration `yaml:"redis_timeout"`
	// Heartbeat is how often a replica registers in Redis and probes it
	// (default 1s).
	Heartbeat time.Duration `yaml:"heartbeat"`
	// UsageFlush is how often usage records reach the key store (default 2s).
	UsageFlush time.Duration `yaml:"usage_flush"`
}

// maxCredits bounds one method's configured cost.
const maxCredits = 1_000_000

func (c *Config) validateRateLimit(bad func(path, format string, a ...any)) {
	r := c.RateLimit
	if r.RedisURL != "" {
		if u, err := url.Parse(r.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			bad("rate_limit.redis_url", "want a redis://host:port/db URL")
		}
	}
	if len(r.RedisPrefix) > 64 {
		bad("rate_limit.redis_prefix", "at most 64 characters")
	}
	for path, d := range map[string]time.Duration{"rate_limit.redis_timeout": r.RedisTimeout, "rate_limit.heartbeat": r.Heartbeat, "rate_limit.usage_flush": r.UsageFlush} {
		if d < 0 {
			bad(path, "must not be negative, got %s", d)
		}
	}
	names := make([]string, 0, len(c.Credits))
	for m := range c.Credits {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		if v := c.Credits[m]; v < 0 || v > maxCredits {
			bad("credits."+m, "want 0 to %d credits, got %d", maxCredits, v)
		}
	}
	for name, p := range c.Plans {
		if p.RatePerSecond != p.RatePerSecond { // NaN from YAML's .nan
			bad("plans."+name+".rate_per_second", "must be a number")
		}
	}
}
