package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Addr is the test server: $NODEGATE_TEST_REDIS (host:port) or 127.0.0.1:6379.
func Addr() string {
	if a := os.Getenv("NODEGATE_TEST_REDIS"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

// Require returns a client of the test server. Without a reachable server
// the test fails when $CI is set and is skipped otherwise.
func Require(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: Addr(), DialTimeout: 2 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s is required when CI is set: %v", Addr(), err)
		}
		t.Skipf("Redis at %s unreachable (set CI to make this a failure): %v", Addr(), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Prefix is a fresh key prefix whose keys are deleted when the test ends.
func Prefix(t testing.TB, c *redis.Client) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	p := "nodegate-test-" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		iter := c.Scan(ctx, 0, p+":*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return p
}
