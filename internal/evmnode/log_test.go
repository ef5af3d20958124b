package evmnode

import (
	"context"
	"log/slog"
	"testing"
)

// TestOwnLogsStayOn: quieting go-ethereum must not silence nodegate's own
// warnings (go-ethereum's log.SetDefault replaces slog's default too).
func TestOwnLogsStayOn(t *testing.T) {
	setGethLogger(slog.LevelError)
	if !slog.Default().Enabled(context.Background(), slog.LevelWarn) {
		t.Fatal("nodegate's warnings are filtered at go-ethereum's log level")
	}
}
