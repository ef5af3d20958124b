package main

import (
	"log/slog"
	"os"

	"github.com/nodegate/nodegate/internal/config"
)

// setLogLevel applies log.level: the first call (level nil) installs
// nodegate's handler on stderr, later calls (SIGHUP) change its level.
// It runs after the embedded node started, which sets its own handler.
func setLogLevel(level *slog.LevelVar, c config.Log) *slog.LevelVar {
	lv, err := c.SlogLevel()
	if err != nil {
		lv = slog.LevelInfo // Validate refused it already
	}
	if level == nil {
		level = new(slog.LevelVar)
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	}
	if level.Level() != lv {
		slog.Info("log level", "level", lv.String())
	}
	level.Set(lv)
	return level
}
