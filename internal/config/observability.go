package config

import (
	"io"
	"net"
	"slices"
	"strings"
)

// Metrics configures the Prometheus listener without a token
// (docs/observability.md).
type Metrics struct {
	// Listen, when set, serves GET /metrics on host:port without a token,
	// for a scraper on a private network. /metrics on the admin listener
	// stays behind the admin token either way.
	Listen string `yaml:"listen"`
}

// Tracing configures traces (docs/observability.md); whether they are
// exported, where, and the sampler come from the OTEL_* environment.
type Tracing struct {
	// TrustClientSampling lets a client's traceparent sampled flag decide
	// whether its request is traced (default false: the parent's trace id
	// is kept for correlation, and nodegate's sampler decides).
	TrustClientSampling bool `yaml:"trust_client_sampling"`
}

// Log configures nodegate's logs (docs/observability.md).
type Log struct {
	// Format is "text" (default) or "json".
	Format string `yaml:"format"`
	// Level is debug, info (default), warn or error.
	Level string `yaml:"level"`
	// Access writes one line per request (per call on WebSocket).
	Access bool `yaml:"access"`
	// Output receives the log lines instead of stderr (tests; not in YAML).
	Output io.Writer `yaml:"-"`
}

// LogFormats and LogLevels are the accepted values.
var (
	LogFormats = []string{"text", "json"}
	LogLevels  = []string{"debug", "info", "warn", "error"}
)

func (c *Config) validateObservability(bad func(path, format string, a ...any)) {
	if c.Metrics.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Metrics.Listen); err != nil {
			bad("metrics.listen", "want host:port, got %q", c.Metrics.Listen)
		}
	}
	if c.Log.Format != "" && !slices.Contains(LogFormats, c.Log.Format) {
		bad("log.format", "want one of %s, got %q", strings.Join(LogFormats, ", "), c.Log.Format)
	}
	if c.Log.Level != "" && !slices.Contains(LogLevels, strings.ToLower(c.Log.Level)) {
		bad("log.level", "want one of %s, got %q", strings.Join(LogLevels, ", "), c.Log.Level)
	}
}
