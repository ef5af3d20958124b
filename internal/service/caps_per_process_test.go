package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// A plan's per-key caps are per key per process: every client listener and
// every reload generation has an ingress server of its own, and a key gets
// its plan's WebSockets and calls in flight once on the process, not once
// per server (internal/admission).

// between is what happens between a key's first uses and the one over its
// cap, and where that one goes: another listener of the same process, or
// the main listener's next generation after a reload.
type between struct {
	name string
	// next does it and returns the base URL (http://…) the next use goes to.
	next func(t *testing.T, s *service.Service) string
}

var acrossServers = []between{
	{"across listeners", func(t *testing.T, s *service.Service) string {
		u := s.NetworkURL("starknet")
		if u == "" {
			t.Fatal("no starknet listener")
		}
		return u
	}},
	{"across a reload", func(t *testing.T, s *service.Service) string {
		reloadCredits(t, s)
		return s.URL()
	}},
}

// reloadCredits reloads s with other credit costs: a new generation (new
// ingress servers) over the same networks.
func reloadCredits(t *testing.T, s *service.Service) {
	t.Helper()
	next := s.Config
	next.Credits = map[string]int{"eth_blockNumber": 3}
	if err := s.Reload(context.Background(), next); err != nil {
		t.Fatalf("reload: %v", err)
	}
}

// TestWebSocketsPerKeyPerProcess: with max_ws_connections 2, a key's two
// open WebSockets on the main listener leave it none on the Starknet
// listener, nor on the main listener after a reload; one closed gives its
// place back wherever the next one connects.
func TestWebSocketsPerKeyPerProcess(t *testing.T) {
	const limit = 2
	for _, tc := range acrossServers {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) { c.Plans["team"] = config.Plan{Failover: true, MaxWSConnections: limit} })
			open := make([]*websocket.Conn, 0, limit)
			for range limit {
				c, _, err := websocket.DefaultDialer.Dial(wsEndpoint(s), nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				open = append(open, c)
			}
			url := "ws" + strings.TrimPrefix(tc.next(t, s), "http") + "/ws/v3/" + s.GeneratedKey
			c, resp, err := websocket.DefaultDialer.Dial(url, nil)
			if err == nil {
				c.Close()
				t.Fatalf("WebSocket %d of the key upgraded (%s)", limit+1, tc.name)
			}
			if resp == nil {
				t.Fatal(err)
			}
			var body struct {
				Error struct {
					Code    int
					Message string
				}
			}
			derr := json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			want := "too many WebSocket connections for this API key (plan limit 2)"
			if derr != nil || resp.StatusCode != http.StatusTooManyRequests || body.Error.Code != -32005 || body.Error.Message != want {
				t.Fatalf("HTTP %d %+v (%v), want 429 -32005 %q", resp.StatusCode, body, derr, want)
			}
			open[0].Close()
			testenv.WaitFor(t, 20*time.Second, "the closed WebSocket's place", func() bool {
				c, resp, err := websocket.DefaultDialer.Dial(url, nil)
				if err == nil {
					c.Close()
					return true
				}
				if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("dial after a close: %v", err)
				}
				return false
			})
		})
	}
}

// loopingCall runs until its plan's call_timeout or the node's gas cap
// stops it (the gateway's gas cap is raised so that it does not stop it
// first).
const loopingCall = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"0x5b600056"},"latest"]}`

// TestInFlightPerKeyPerProcess: with max_in_flight 1, a key's looping
// eth_call on a WebSocket of the main listener makes its HTTP requests
// on the Starknet listener, and on the main listener after a reload,
// answer 429 -32005 until the call is stopped; then they are served
// again.
func TestInFlightPerKeyPerProcess(t *testing.T) {
	for _, tc := range acrossServers {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) {
				c.Limits.GasCapFactor = 1000
				c.Plans["team"] = config.Plan{Failover: true, MaxInFlight: 1, CallTimeout: 3 * time.Second}
			})
			ws, _, err := websocket.DefaultDialer.Dial(wsEndpoint(s), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ws.Close() })
			if err := ws.WriteMessage(websocket.TextMessage, []byte(loopingCall)); err != nil {
				t.Fatal(err)
			}
			wsAnswer := testenv.NextMessage(ws, time.Minute)
			url := tc.next(t, s) + "/v3/" + s.GeneratedKey
			// A call the next server's network answers at once.
			call := testenv.RPCBody("eth_blockNumber", "")
			if strings.Contains(tc.name, "listeners") {
				call = testenv.RPCBody("starknet_blockNumber", "")
			}
			want := `"too many calls in flight for this API key (limit 1): wait for answers before sending more"`
			for refused := false; !refused; {
				select {
				case answer := <-wsAnswer:
					t.Fatalf("the WebSocket call ended (%s) before the other server saw it in flight", answer)
				default:
				}
				status, out := testenv.PostJSON(t, url, call)
				refused = status == http.StatusTooManyRequests && strings.Contains(string(out), `"code":-32005`) && strings.Contains(string(out), want)
				if !refused && status != http.StatusOK {
					t.Fatalf("HTTP %d %s", status, out)
				}
				time.Sleep(5 * time.Millisecond)
			}
			// The call ends at call_timeout, or at the node's own gas cap on
			// a fast machine: either way it ends with an error.
			if answer := <-wsAnswer; !strings.Contains(answer, `"error":{"code":-32000,`) {
				t.Fatalf("the looping call answered %s", answer)
			}
			if status, out := testenv.PostJSON(t, url, call); status != http.StatusOK || strings.Contains(string(out), `"error"`) {
				t.Fatalf("after the call ended: HTTP %d %s", status, out)
			}
		})
	}
}
