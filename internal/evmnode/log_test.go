package evmnode

import (
	"context"
	"log/slog"
	"testing"
)

// TestOwnLogsStayOn: quieting go-ethereum must not silence nodegate's own
// warnings (go-ethereum's log.SetDefault replaces slog's default too).
func TestOwnLogsStayOn(t *testing.T) {
	SetLogging(slog.LevelError)
	h := slog.Default().Handler()
	if _, ok := h.(*slog.TextHandler); !ok {
		t.Fatalf("slog's default handler is %T, not nodegate's own", h)
	}
	if !h.Enabled(context.Background(), slog.LevelWarn) {
		t.Fatal("nodegate's warnings are filtered")
	}
}
