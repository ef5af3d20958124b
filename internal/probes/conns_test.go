package probes

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// keptPost sends one keep-alive POST on c: the status and whether the
// server said it closes the connection.
func keptPost(c net.Conn, br *bufio.Reader, path string) (status int, closing bool, err error) {
	body := testenv.RPCBody("eth_blockNumber", "[]")
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body); err != nil {
		return 0, false, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Close, nil
}

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
	dial := func() (net.Conn, *bufio.Reader, error) {
		c, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
		if err != nil {
			return nil, nil, err
		}
		t.Cleanup(func() { _ = c.Close() })
		return c, bufio.NewReader(c), nil
	}
	kept, closedByServer, refusedHolder := 0, 0, 0
	for range holderTries {
		c, br, err := dial()
		if err != nil {
			refusedHolder++
			continue
		}
		status, closing, err := keptPost(c, br, holder)
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
		c, br, err := dial()
		if err != nil {
			refused++
			continue
		}
		if status, _, err := keptPost(c, br, "/v3/"+s.GeneratedKey); err == nil && status == http.StatusOK {
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
