package service_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// closedByServer reports whether the server has closed c (a read ends).
func closedByServer(c net.Conn, within time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(within))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// TestIdleWrongKeyConnections: many idle keep-alive connections with a wrong
// key from one address are bounded (max_per_ip: the rest are closed at
// accept) and closed after the keyless idle timeout; meanwhile the metrics
// listener answers, and afterwards a valid key is served and keeps its
// connection past that timeout.
func TestIdleWrongKeyConnections(t *testing.T) {
	const perIP, tries = 40, 120
	idle := 500 * time.Millisecond
	s := start(t, func(c *config.Config) {
		c.Metrics.Listen = "127.0.0.1:0"
		c.Limits.Connections = config.Connections{MaxPerIP: perIP, KeylessIdleTimeout: idle}
	})
	var held []net.Conn
	refused := 0
	for range tries {
		c, err := testenv.DialKept(t, s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		status, _, err := c.Post("/v3/0123456789abcdef0123456789abcdef")
		switch {
		case err != nil:
			refused++ // closed at accept
		case status != http.StatusUnauthorized:
			t.Fatalf("wrong key answered %d", status)
		default:
			held = append(held, c)
		}
	}
	if len(held) != perIP || refused != tries-perIP {
		t.Fatalf("%d connections answered 401 and %d refused, want %d and %d", len(held), refused, perIP, tries-perIP)
	}
	// The metrics listener is not theirs to take.
	resp, err := http.Get("http://" + s.MetricsAddr() + "/metrics")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics while the wrong-key connections are open: %v %v", err, resp)
	}
	resp.Body.Close()
	for i, c := range held {
		if !closedByServer(c, 20*idle+5*time.Second) {
			t.Fatalf("wrong-key connection %d still open after the keyless idle timeout", i)
		}
	}
	// A valid key: served, and its connection outlives the keyless timeout.
	c, err := testenv.DialKept(t, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		status, _, err := c.Post("/v3/" + s.GeneratedKey)
		if err != nil || status != http.StatusOK {
			t.Fatalf("valid key, request %d: %d %v", i, status, err)
		}
		if i == 0 && closedByServer(c, 3*idle) {
			t.Fatal("a connection that showed a valid key was closed by the keyless idle timeout")
		}
	}
	if !strings.HasPrefix(s.URL(), "http://") {
		t.Fatal("test expects plain HTTP")
	}
}

// TestKeyedConnectionsLeaveTheAddressBound: the per-address bound counts
// connections that have not shown a valid key. Three times max_per_ip
// connections from one address, each showing a valid key on its first
// request, are all served and kept (their key's plan bounds them, as it
// bounds WebSockets behind a balancer); keyless connections from the same
// address are still bounded by max_per_ip beside them.
func TestKeyedConnectionsLeaveTheAddressBound(t *testing.T) {
	const perIP = 10
	s := start(t, func(c *config.Config) {
		c.Limits.Connections = config.Connections{MaxPerIP: perIP}
	})
	good := "/v3/" + s.GeneratedKey
	dial := func() *testenv.KeptConn {
		c, err := testenv.DialKept(t, s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for i := range 3 * perIP {
		if status, _, err := dial().Post(good); err != nil || status != http.StatusOK {
			t.Fatalf("keyed connection %d: %d %v (closed at accept: the address bound counted it)", i, status, err)
		}
	}
	// Keyless connections beside them: max_per_ip are taken, the next is
	// closed at accept.
	for i := range perIP {
		if status, _, err := dial().Post("/v3/0123456789abcdef0123456789abcdef"); err != nil || status != http.StatusUnauthorized {
			t.Fatalf("keyless connection %d: %d %v", i, status, err)
		}
	}
	if _, _, err := dial().Post("/v3/0123456789abcdef0123456789abcdef"); err == nil {
		t.Fatal("a keyless connection over max_per_ip was served")
	}
}
