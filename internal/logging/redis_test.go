package logging

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// TestRedisLinesThroughSlog: go-redis's own lines (here, a dial that
// fails) reach the default slog logger, at debug level, in its format.
func TestRedisLinesThroughSlog(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()

	var logs testenv.LogBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	c := redis.NewClient(&redis.Options{Addr: down, DialTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	redisLog{}.Printf(context.Background(), "redis: %s", "probe") // the adapter itself
	_ = c.Ping(context.Background()).Err()
	if !strings.Contains(logs.String(), `"msg":"go-redis","detail":"redis: probe"`) {
		t.Fatalf("go-redis's line is not in slog's JSON:\n%s", logs.String())
	}
}
