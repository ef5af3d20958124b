package main

import (
	"log/slog"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/logging"
)

// setLogLevel applies log.format and log.level: the first call (level nil)
// installs nodegate's handler (internal/logging) on stderr, later calls
// (SIGHUP) change its level. It runs after the embedded node started,
// which sets its own handler.
func setLogLevel(level *slog.LevelVar, c config.Log) *slog.LevelVar {
	lv, err := logging.ParseLevel(c.Level)
	if err != nil {
		lv = slog.LevelInfo // Validate refused it already
	}
	if level == nil {
		level = new(slog.LevelVar)
		level.Set(lv)
		if l, err := logging.NewLeveled(c, level); err == nil {
			slog.SetDefault(l)
		}
	}
	if level.Level() != lv {
		slog.Info("log level", "level", lv.String())
	}
	level.Set(lv)
	return level
}
