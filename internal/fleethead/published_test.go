package fleethead_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestPublishedWaitsForTheHead: once Published returns, the head handed
// over before it is the fleet's (the Redis key holds it), every time; a
// call with nothing handed over returns at once; and with Redis away it
// returns (within a round trip's timeout) instead of holding calls.
func TestPublishedWaitsForTheHead(t *testing.T) {
	rc := redistest.Require(t)
	prefix := redistest.Prefix(t, rc)
	proxy := testenv.NewProxy(t, redistest.Addr())
	net := startFleet(t, proxy.Addr(), prefix).Join("main", upstream.NewPool("a", upstream.PoolConfig{}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := prefix + ":fleethead:main"
	for n := uint64(100); n < 150; n++ {
		net.HeadMoved(n, false)
		net.Published(ctx)
		got, err := rc.HGet(ctx, key, "n").Result()
		if err != nil || got != strconv.FormatUint(n, 10) {
			t.Fatalf("head %d handed over and published: the fleet's head is %q (%v), want %d", n, got, err, n)
		}
	}
	net.Published(ctx) // nothing handed over: at once
	if ctx.Err() != nil {
		t.Fatal("Published with nothing handed over waited for the test's deadline")
	}

	proxy.Cut()
	for n := uint64(150); n < 155; n++ {
		net.HeadMoved(n, false)
		net.Published(ctx) // a failed send ends the wait; then no wait while Redis is away
	}
	if ctx.Err() != nil {
		t.Fatal("Published with Redis away waited for the test's deadline")
	}
}
