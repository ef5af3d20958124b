package ingress_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// keysCLI runs `nodegate keys args... --data-dir DIR` against the running
// service's SQLite store, as an operator would from another shell.
func keysCLI(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := keyscmd.Run(append(args, "--data-dir", dataDir), &out, &errOut); code != 0 {
		t.Fatalf("nodegate keys %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

// createKeyCLI makes a team key with the CLI and returns its id and plain key.
func createKeyCLI(t *testing.T, dataDir string, args ...string) (id, key string) {
	t.Helper()
	var c struct{ ID, Key string }
	out := keysCLI(t, dataDir, append([]string{"create", "--plan", "team", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("create output %q: %v", out, err)
	}
	return c.ID, c.Key
}

// dialKey opens a socket for key once the service knows the key.
func dialKey(t *testing.T, s *service.Service, key string, h http.Header) *websocket.Conn {
	t.Helper()
	var c *websocket.Conn
	testenv.WaitFor(t, 20*time.Second, "the service to know the key", func() bool {
		var resp *http.Response
		var err error
		c, resp, err = websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+key, h)
		if err != nil && (resp == nil || resp.StatusCode != http.StatusUnauthorized) {
			t.Fatalf("dial: %v %v", resp, err)
		}
		return err == nil
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// closeOf reads (skipping notifications) until the server closes the
// socket, and returns its close frame.
func closeOf(t *testing.T, c *websocket.Conn, within time.Duration) *websocket.CloseError {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(within))
	for {
		_, msg, err := c.ReadMessage()
		if err == nil {
			if !strings.Contains(string(msg), `"eth_subscription"`) {
				t.Fatalf("unexpected message while waiting for the close: %s", msg)
			}
			continue
		}
		var ce *websocket.CloseError
		if !asClose(err, &ce) {
			t.Fatalf("socket not closed with a close frame within %s: %v", within, err)
		}
		return ce
	}
}

// TestWebSocketFollowsKeyChanges: an open socket is admitted against its
// key's current record. A changed method allowlist applies to the next
// message; a revoked key's socket is closed (1008, the 401 message) without
// the client sending anything, and its subscriptions end; an origin
// allowlist that now refuses the socket closes it with the 403 message.
func TestWebSocketFollowsKeyChanges(t *testing.T) {
	const refresh = 100 * time.Millisecond
	s := startGateway(t, func(c *config.Config) { c.KeyRefresh = refresh })
	dir := s.Config.DataDir

	t.Run("method allowlist applies to the next message", func(t *testing.T) {
		id, key := createKeyCLI(t, dir)
		c := dialKey(t, s, key, nil)
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); !strings.Contains(got, `"result"`) {
			t.Fatalf("before the change: %s", got)
		}
		keysCLI(t, dir, "update", id, "--method", "eth_blockNumber")
		testenv.WaitFor(t, 20*time.Second, "the open socket to refuse a method its key no longer allows", func() bool {
			return strings.Contains(roundTrip(t, c, `{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}`), `"code":-32002`)
		})
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber"}`); !strings.Contains(got, `"result"`) {
			t.Fatalf("allowed method refused: %s", got)
		}
	})

	t.Run("revoked key closes the socket and ends its subscriptions", func(t *testing.T) {
		id, key := createKeyCLI(t, dir)
		c := dialKey(t, s, key, nil)
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`); !strings.Contains(got, `"result":"0x`) {
			t.Fatalf("subscribe: %s", got)
		}
		if n := s.Networks()[0].Subs.Streams(); n != 1 {
			t.Fatalf("%d upstream subscriptions, want 1", n)
		}
		revoked := time.Now()
		keysCLI(t, dir, "revoke", id)
		ce := closeOf(t, c, 20*time.Second)
		if ce.Code != websocket.ClosePolicyViolation || ce.Text != "invalid API key" {
			t.Fatalf("close %d %q, want 1008 %q", ce.Code, ce.Text, "invalid API key")
		}
		t.Logf("closed %s after the revocation (key_refresh %s)", time.Since(revoked).Round(time.Millisecond), refresh)
		testenv.WaitFor(t, 10*time.Second, "the revoked key's subscription to end", func() bool { return s.Networks()[0].Subs.Streams() == 0 })
		if _, resp, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+key, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a revoked key upgraded: %v %v", resp, err)
		}
	})

	t.Run("origin no longer allowed closes the socket", func(t *testing.T) {
		id, key := createKeyCLI(t, dir, "--origin", "https://a.example")
		c := dialKey(t, s, key, http.Header{"Origin": {"https://a.example"}})
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); !strings.Contains(got, `"result"`) {
			t.Fatalf("before the change: %s", got)
		}
		keysCLI(t, dir, "update", id, "--origin", "https://b.example")
		ce := closeOf(t, c, 20*time.Second)
		if ce.Code != websocket.ClosePolicyViolation || ce.Text != "rejected due to API key settings" {
			t.Fatalf("close %d %q, want 1008 %q", ce.Code, ce.Text, "rejected due to API key settings")
		}
	})
}

// TestWebSocketConnectionsPerKey: a key's plan bounds its open WebSockets;
// one more is refused at the upgrade with 429 and a JSON-RPC body, other
// keys are not affected, and a closed connection frees its place.
func TestWebSocketConnectionsPerKey(t *testing.T) {
	const limit = 3
	s := startGateway(t, func(c *config.Config) { c.Plans["team"] = config.Plan{Failover: true, MaxWSConnections: limit} })
	open := make([]*websocket.Conn, 0, limit)
	for range limit {
		open = append(open, dialKey(t, s, s.GeneratedKey, nil))
	}
	_, resp, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+s.GeneratedKey, nil)
	if err == nil || resp == nil {
		t.Fatalf("connection %d upgraded: %v", limit+1, err)
	}
	var body struct {
		JSONRPC string
		ID      json.RawMessage
		Error   struct {
			Code    int
			Message string
		}
	}
	if derr := json.NewDecoder(resp.Body).Decode(&body); derr != nil {
		t.Fatalf("refusal body is not JSON: %v", derr)
	}
	resp.Body.Close()
	want := "too many WebSocket connections for this API key (plan limit 3)"
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Content-Type") != "application/json" ||
		body.JSONRPC != "2.0" || string(body.ID) != "null" || body.Error.Code != -32005 || body.Error.Message != want {
		t.Fatalf("HTTP %d %s %+v, want 429 -32005 %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
	}

	_, other := createKeyCLI(t, s.Config.DataDir)
	for range limit {
		c := dialKey(t, s, other, nil)
		if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); !strings.Contains(got, `"result"`) {
			t.Fatalf("other key: %s", got)
		}
	}

	open[0].Close()
	testenv.WaitFor(t, 20*time.Second, "a socket again after a close", func() bool {
		c, resp, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+s.GeneratedKey, nil)
		if err != nil && (resp == nil || resp.StatusCode != http.StatusTooManyRequests) {
			t.Fatalf("after a close: %v %v", resp, err)
		}
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}
