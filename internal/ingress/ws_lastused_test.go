package ingress_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestWebSocketCallsUpdateLastUsed: calls over an open socket are uses of
// its key, as HTTP requests are: the key's last_used_at in the store
// (written back at shutdown at the latest) moves past the second of the
// upgrade.
func TestWebSocketCallsUpdateLastUsed(t *testing.T) {
	s := startGateway(t, func(c *config.Config) { c.KeyRefresh = 50 * time.Millisecond })
	id, key := createKeyCLI(t, s.Config.DataDir)
	c := dialKey(t, s, key, nil)
	upgraded := time.Now().Unix() // the upgrade's use is of this second or an earlier one
	// Last-used times count whole seconds (the key cache's clock, which
	// moves on each refresh): calls go on until one is made two seconds
	// later, so that the cache's clock has passed the upgrade's second.
	testenv.WaitFor(t, 10*time.Second, "socket calls in a later second", func() bool {
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); !strings.Contains(got, `"result"`) {
			t.Fatalf("call: %s", got)
		}
		return time.Now().Unix() > upgraded+1
	})
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil { // writes the last-used times back
		t.Fatal(err)
	}
	var rec struct {
		LastUsedAt *time.Time `json:"last_used_at"`
	}
	out := keysCLI(t, s.Config.DataDir, "show", id, "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("show output %q: %v", out, err)
	}
	if rec.LastUsedAt == nil || rec.LastUsedAt.Unix() <= upgraded {
		t.Fatalf("last_used_at %v, want after %s (the upgrade's second)", rec.LastUsedAt, time.Unix(upgraded, 0))
	}
}
