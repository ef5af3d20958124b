package evmnode

import (
	"log/slog"
	"os"

	"github.com/ethereum/go-ethereum/log"
)

// setGethLogger keeps go-ethereum's chatter out of nodegate's output unless
// it matters.
func setGethLogger(level slog.Level) {
	log.SetDefault(log.NewLogger(log.NewTerminalHandlerWithLevel(os.Stderr, level, false)))
}
