package evmnode

import (
	"log/slog"
	"os"

	"github.com/ethereum/go-ethereum/log"
)

// SetLogging keeps go-ethereum's chatter out of nodegate's output unless it
// matters: go-ethereum's own logs at level and up (the command uses
// slog.LevelError: its start-up warnings about p2p and snapshots do not
// apply to an in-memory node). go-ethereum's log.SetDefault also makes its handler the
// process-wide slog default (and the log package's output); nodegate's own
// logs get a handler of their own again, at info level, on stderr.
func SetLogging(level slog.Level) {
	log.SetDefault(log.NewLogger(log.NewTerminalHandlerWithLevel(os.Stderr, level, false)))
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
}
