package config

import "time"

// Connections bound the client listeners' connections (docs/limits.md,
// "Connections"); read at start.
type Connections struct {
	// MaxPerListener bounds one client listener's open connections (0: only
	// the process's descriptor budget, below).
	MaxPerListener int `yaml:"max_per_listener"`
	// MaxPerIP bounds one client address's connections on a listener that
	// have not shown a valid key (0: DefaultMaxConnectionsPerIP; -1: no
	// bound); a connection that has is bounded by its key's plan.
	MaxPerIP int `yaml:"max_per_ip"`
	// KeylessIdleTimeout closes a connection idle that long before a
	// request on it has shown a valid key (0: DefaultKeylessIdleTimeout);
	// afterwards the listener's idle timeout (120s) applies.
	KeylessIdleTimeout time.Duration `yaml:"keyless_idle_timeout"`
	// DescriptorReserve is how many file descriptors the client listeners
	// leave to everything else (key store, Redis, upstreams, the admin and
	// metrics listeners): together they hold at most RLIMIT_NOFILE minus
	// this (0: DefaultDescriptorReserve; -1: no reserve, no bound).
	DescriptorReserve int `yaml:"descriptor_reserve"`
}

// The connection defaults.
const (
	DefaultMaxConnectionsPerIP = 1000
	DefaultKeylessIdleTimeout  = 5 * time.Second
	DefaultDescriptorReserve   = 1024
)

// PerIP is the effective per-address bound (0: none).
func (c Connections) PerIP() int {
	switch {
	case c.MaxPerIP == 0:
		return DefaultMaxConnectionsPerIP
	case c.MaxPerIP < 0:
		return 0
	}
	return c.MaxPerIP
}

// KeylessIdle is the effective idle timeout before a key is seen.
func (c Connections) KeylessIdle() time.Duration {
	if c.KeylessIdleTimeout == 0 {
		return DefaultKeylessIdleTimeout
	}
	return c.KeylessIdleTimeout
}

// Budget is how many connections the client listeners may hold together,
// given the process's descriptor limit (0: no bound).
func (c Connections) Budget(nofile uint64) int {
	reserve := c.DescriptorReserve
	switch {
	case reserve < 0 || nofile == 0:
		return 0
	case reserve == 0:
		reserve = DefaultDescriptorReserve
	}
	reserve = min(reserve, int(nofile/4)) // a small limit still leaves most to clients
	return max(int(nofile)-reserve, 1)
}

func (c *Connections) validate(bad func(path, format string, a ...any)) {
	if c.MaxPerListener < 0 {
		bad("limits.connections.max_per_listener", "must not be negative (0 means no bound but the descriptor budget)")
	}
	if c.MaxPerIP < -1 {
		bad("limits.connections.max_per_ip", "want -1 (no bound), 0 (default %d) or a positive number", DefaultMaxConnectionsPerIP)
	}
	if c.KeylessIdleTimeout < 0 {
		bad("limits.connections.keyless_idle_timeout", "must not be negative")
	}
	if c.DescriptorReserve < -1 {
		bad("limits.connections.descriptor_reserve", "want -1 (no reserve), 0 (default %d) or a positive number", DefaultDescriptorReserve)
	}
}
