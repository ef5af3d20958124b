package config

import "time"

// Hedge tunes a network's hedged reads (docs/pools.md, "Hedged reads"):
// a read its upstream has not answered within the method's recent latency
// quantile there is sent to a second upstream, the first answer wins.
// Zero values keep the defaults.
type Hedge struct {
	// Enabled turns hedging on or off (default on).
	Enabled *bool `yaml:"enabled"`
	// Quantile is the latency quantile of a method on an upstream past
	// which its call is hedged (0.99).
	Quantile float64 `yaml:"quantile"`
	// MinDelay is the shortest hedge delay (1ms).
	MinDelay time.Duration `yaml:"min_delay"`
	// MaxShare caps the hedges at this fraction of the calls (0.1);
	// Burst is how many may go at once beyond it after a quiet time (10).
	MaxShare float64 `yaml:"max_share"`
	Burst    int     `yaml:"burst"`
	// ExecutionShare: a call that runs code (eth_call…) is hedged only
	// when its hedge starts within this fraction of the time its plan's
	// call_timeout left it (0.5).
	ExecutionShare float64 `yaml:"execution_share"`
}

// On reports whether hedging is on (default: yes).
func (h Hedge) On() bool { return h.Enabled == nil || *h.Enabled }

func (h Hedge) validate(path string, bad func(field, format string, args ...any)) {
	path += ".pool.hedge"
	if h.Quantile < 0 || h.Quantile >= 1 {
		bad(path+".quantile", "want a fraction below 1 (0: default 0.99), got %v", h.Quantile)
	}
	if h.MinDelay < 0 {
		bad(path+".min_delay", "must not be negative (0: default 1ms)")
	}
	if h.MaxShare < 0 || h.MaxShare > 1 {
		bad(path+".max_share", "want a fraction from 0 (default 0.1) to 1, got %v", h.MaxShare)
	}
	if h.Burst < 0 {
		bad(path+".burst", "must not be negative (0: default 10)")
	}
	if h.ExecutionShare < 0 || h.ExecutionShare > 1 {
		bad(path+".execution_share", "want a fraction from 0 (default 0.5) to 1, got %v", h.ExecutionShare)
	}
}
