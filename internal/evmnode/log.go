package evmnode

import (
	"log/slog"
	"os"

	"github.com/ethereum/go-ethereum/log"
)

// setGethLogger keeps go-ethereum's chatter out of nodegate's output unless
// it matters. go-ethereum's log.SetDefault also replaces the process-wide
// slog default; nodegate's own default is put back, so that its warnings are
// not filtered at go-ethereum's level.
func setGethLogger(level slog.Level) {
	own := slog.Default()
	log.SetDefault(log.NewLogger(log.NewTerminalHandlerWithLevel(os.Stderr, level, false)))
	slog.SetDefault(own)
}
