package main

import (
	"flag"
	"log/slog"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/logging"
)

// obsFlags are the observability flags of `nodegate serve`
// (docs/observability.md).
type obsFlags struct {
	metricsListen, logFormat, logLevel string
	accessLog                          bool
}

func (f *obsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "serve GET /metrics without a token on this `address` (host:port), for a Prometheus scraper on a private network")
	fs.StringVar(&f.logFormat, "log-format", "text", "log `format`: text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.BoolVar(&f.accessLog, "access-log", false, "log one line per request (per call on WebSocket): network, key id, methods, outcome, duration, upstream, bytes")
}

// setDefaultLogger makes the process's logs follow log.format and
// log.level. It runs again once the service has started, since starting
// the embedded node resets the default logger.
func setDefaultLogger(c config.Log) {
	if l, err := logging.New(c); err == nil {
		slog.SetDefault(l)
	}
}
