package probes

import (
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// probeConnections is probe (c): one key opens many keep-alive
// connections, each with an admitted request, and keeps every one it may;
// then another key's new connections are all accepted and served. The
// rule is internal/ingress's (a connection keyed once admitted, a place
// among its key's max_connections: connguard.go;
// TestOneKeyCannotHoldEveryConnection in internal/service).
func probeConnections(t *testing.T, f *figures) {
	perListener := pick(64, 512)
	holderTries := 3 * perListener
	s := startService(t, func(c *config.Config) {
		c.NoStarknet = true
		c.Plans["holder"] = config.Plan{MaxConnections: 8}
		c.Limits.Connections = config.Connections{MaxPerListener: perListener, KeylessIdleTimeout: 300 * time.Millisecond}
	})
	holder := "/v3/" + newKey(t, s, "holder", "holder")
	kept, closedByServer, refusedHolder := 0, 0, 0
	for range holderTries {
		c, err := testenv.DialKept(t, s.Addr())
		if err != nil {
			refusedHolder++
			continue
		}
		status, closing, err := c.Post(holder)
		switch {
		case err != nil || status != http.StatusOK:
			refusedHolder++
			_ = c.Close()
		case closing:
			closedByServer++
			_ = c.Close()
		default:
			kept++
		}
	}
	otherTries := pick(20, 100)
	served, refused := 0, 0
	for range otherTries {
		c, err := testenv.DialKept(t, s.Addr())
		if err != nil {
			refused++
			continue
		}
		if status, _, err := c.Post("/v3/" + s.GeneratedKey); err == nil && status == http.StatusOK {
			served++
		} else {
			refused++
		}
	}
	f.add("c one key's connections", "holder: %d connections tried, %d kept (max_connections 8), %d closed after their answer, %d refused; other key: %d of %d new connections served, %d refused (target 0)",
		holderTries, kept, closedByServer, refusedHolder, served, otherTries, refused)
	if refused > 0 || kept > 8 {
		t.Fatalf("another key's connections refused %d of %d times (the holder kept %d)", refused, otherTries, kept)
	}
}
