package logging

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/nodegate/nodegate/internal/config"
)

// New makes a logger for the settings, writing to c.Output (stderr when
// nil). An unknown format or level is an error (config validation
// refuses them first).
func New(c config.Log) (*slog.Logger, error) {
	level, err := ParseLevel(c.Level)
	if err != nil {
		return nil, err
	}
	return NewLeveled(c, level)
}

// NewLeveled is New with the level given by level instead of c.Level: a
// *slog.LevelVar lets a reload change it without a new logger.
func NewLeveled(c config.Log, level slog.Leveler) (*slog.Logger, error) {
	w := c.Output
	if w == nil {
		w = os.Stderr
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch c.Format {
	case "", "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("log format %q: want text or json", c.Format)
	}
	return slog.New(h), nil
}

// ParseLevel reads debug, info, warn or error ("" is info).
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error", s)
}

// Discard is a logger that writes nothing.
var Discard = slog.New(slog.NewTextHandler(io.Discard, nil))
