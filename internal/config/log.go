package config

import (
	"log/slog"
	"strings"
)

// Log configures nodegate's log. The level is applied at start and again
// on SIGHUP.
type Log struct {
	// Level is debug, info, warn or error (default info).
	Level string `yaml:"level"`
}

// SlogLevel is the level as log/slog counts it (info when empty).
func (l Log) SlogLevel() (slog.Level, error) {
	var lv slog.Level
	if l.Level == "" {
		return slog.LevelInfo, nil
	}
	err := lv.UnmarshalText([]byte(strings.ToUpper(l.Level)))
	return lv, err
}

func (l *Log) validate(bad func(path, format string, a ...any)) {
	if _, err := l.SlogLevel(); err != nil {
		bad("log.level", "want debug, info, warn or error, got %q", l.Level)
	}
}
