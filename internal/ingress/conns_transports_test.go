package ingress_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestConnectionsPerKeyAcrossTransports: a key's plan bounds its open
// connections over HTTP and WebSocket together (max_connections): with a
// bound of 2 held by two WebSockets, the key's HTTP request on a new
// connection is answered and its connection closed (Connection: close),
// and a third WebSocket is refused at the upgrade with 429 naming the
// limit; once a WebSocket closes, its place serves a new one.
func TestConnectionsPerKeyAcrossTransports(t *testing.T) {
	s := startGateway(t, func(c *config.Config) {
		c.Plans["pair"] = config.Plan{Failover: true, MaxConnections: 2}
		c.Limits.Connections.MaxPerListener = 64
	})
	key := createKey(t, s, "pair")
	first := dialKey(t, s, key, nil)
	dialKey(t, s, key, nil)

	c, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := testenv.RPCBody("eth_blockNumber", "[]")
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "POST /v3/%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", key, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Fatalf("the key's HTTP request with its two WebSockets open: %d, Connection: close %v; want 200 and the connection closed", resp.StatusCode, resp.Close)
	}

	_, refused, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+key, nil)
	if err == nil || refused == nil || refused.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third WebSocket of a key with max_connections 2: %v %v, want 429", refused, err)
	}
	msg, _ := io.ReadAll(refused.Body)
	refused.Body.Close()
	if !strings.Contains(string(msg), "too many connections for this API key (plan limit 2)") {
		t.Fatalf("refusal %s does not name the limit", msg)
	}

	first.Close()
	testenv.WaitFor(t, 20*time.Second, "the closed WebSocket's place served a new one", func() bool {
		ws, _, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+key, nil)
		if err == nil {
			ws.Close()
		}
		return err == nil
	})
}
