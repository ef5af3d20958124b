package ratelimit_test

import (
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestUnreachableAtStartSaidOnce: with Redis unreachable when the limiter
// starts, it says at once, in nodegate's log, that per-replica limits
// apply (before, it said nothing until Redis came and went).
func TestUnreachableAtStartSaidOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close() // nothing listens there any more

	var logs testenv.LogBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	l, err := ratelimit.New(ratelimit.Options{RedisURL: "redis://" + down + "/0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	if l.Shared() {
		t.Fatal("shared with nothing listening")
	}
	if n := strings.Count(logs.String(), "Redis unreachable, enforcing per-replica limits"); n != 1 {
		t.Fatalf("said %d times at start:\n%s", n, logs.String())
	}
}
