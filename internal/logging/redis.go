package logging

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// redisLog hands go-redis's own lines (a dial that failed, a pool's
// event) to the process's default slog logger, in its format, at debug
// level: what an outage means nodegate says itself, once, at error level
// (the rate limiter's "Redis unreachable, enforcing per-replica limits").
type redisLog struct{}

func (redisLog) Printf(ctx context.Context, format string, v ...any) {
	slog.Default().Log(ctx, slog.LevelDebug, "go-redis", "detail", fmt.Sprintf(format, v...))
}

// go-redis logs through one process-wide logger; any binary with
// nodegate's logging routes it through slog.
func init() { redis.SetLogger(redisLog{}) }
