package ingress_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestWebSocketCallsUpdateLastUsed: calls over an open socket are uses of
// its key, as HTTP requests are: the key's last-used time (what
// last_used_at is written from) moves past the upgrade's.
func TestWebSocketCallsUpdateLastUsed(t *testing.T) {
	s := startGateway(t, func(c *config.Config) { c.KeyRefresh = 50 * time.Millisecond })
	id, key := createKeyCLI(t, s.Config.DataDir)
	c := dialKey(t, s, key, nil)
	k, ok := s.Keys.ByID(id)
	if !ok {
		t.Fatal("key not in the cache")
	}
	upgraded := k.LastUsed()
	if upgraded.IsZero() {
		t.Fatal("the upgrade recorded no use")
	}
	// Last-used times count whole seconds: calls go on until one lands in
	// a later second than the upgrade (or the wait gives up).
	testenv.WaitFor(t, 10*time.Second, "a socket call recorded as a use", func() bool {
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); !strings.Contains(got, `"result"`) {
			t.Fatalf("call: %s", got)
		}
		k, _ := s.Keys.ByID(id)
		return k.LastUsed().After(upgraded)
	})
}
