package ingress_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
)

func startGateway(t testing.TB, edit func(*config.Config)) *service.Service {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.Plans["team"] = config.Plan{Failover: true} // no rate limits: these tests are about WebSockets
	cfg.Limits.Connections.MaxPerIP = -1            // every client of these tests is on 127.0.0.1, some open thousands
	if edit != nil {
		edit(&cfg)
	}
	return servicetest.Start(t, cfg)
}

func dial(t *testing.T, s *service.Service) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+s.GeneratedKey, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dialGW opens a WebSocket to the wire tests' gateway (gw) with its key.
func dialGW(t *testing.T) *websocket.Conn {
	t.Helper()
	return dialURL(t, websocket.DefaultDialer, gw.WSURL()+"/ws"+keyPath())
}

// roundTrip sends one text message and reads the next message.
func roundTrip(t *testing.T, c *websocket.Conn, msg string) string {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
	return readText(t, c)
}

func readText(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, out, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(out)
}

// closeCode reads until the connection ends and returns the close code.
func closeCode(t *testing.T, c *websocket.Conn) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if ok := asClose(err, &ce); ok {
				return ce.Code
			}
			t.Fatalf("connection ended without a close frame: %v", err)
		}
	}
}

func asClose(err error, ce **websocket.CloseError) bool {
	e, ok := err.(*websocket.CloseError)
	if ok {
		*ce = e
	}
	return ok
}

// TestWebSocketAuthBeforeUpgrade: the key is checked at the upgrade, with
// the same answers as HTTP.
func TestWebSocketAuthBeforeUpgrade(t *testing.T) {
	t.Parallel()
	s := gw
	for _, tc := range []struct {
		name, path string
		status     int
		message    string
	}{
		{"no key", "/ws/v3/", http.StatusUnauthorized, "API key required in the url"},
		{"no key, no slash", "/ws/v3", http.StatusUnauthorized, "API key required in the url"},
		{"unknown key", "/ws/v3/fedcba9876543210fedcba9876543210", http.StatusUnauthorized, "invalid API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := websocket.DefaultDialer.Dial(s.WSURL()+tc.path, nil)
			if err == nil || resp == nil || resp.StatusCode != tc.status {
				t.Fatalf("want HTTP %d before the upgrade, got %v %v", tc.status, resp, err)
			}
			var body struct {
				Error struct {
					Code    int
					Message string
				}
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if body.Error.Code != -32002 || body.Error.Message != tc.message {
				t.Fatalf("body %+v", body)
			}
		})
	}
	t.Run("plain GET", func(t *testing.T) {
		resp, err := http.Get(s.URL() + "/ws/v3/" + s.GeneratedKey)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUpgradeRequired {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

// TestWebSocketMessages: every message answered through the HTTP pipeline,
// ids unchanged, bad input answered as on HTTP.
func TestWebSocketMessages(t *testing.T) {
	t.Parallel()
	c := dialGW(t)
	for _, tc := range []struct{ name, in, want string }{
		{"call, numeric id", `{"jsonrpc":"2.0","id":42,"method":"eth_chainId","params":[]}`, `{"jsonrpc":"2.0","id":42,"result":"0x539"}`},
		{"zero id", `{"jsonrpc":"2.0","id":0,"method":"eth_chainId","params":[]}`, `{"jsonrpc":"2.0","id":0,"result":"0x539"}`},
		{"string id", `{"jsonrpc":"2.0","id":"a\"b","method":"eth_chainId"}`, `{"jsonrpc":"2.0","id":"a\"b","result":"0x539"}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":"x","method":"debug_traceBlock","params":[]}]`,
			`[{"jsonrpc":"2.0","id":1,"result":"0x539"},{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"the method debug_traceBlock does not exist/is not available"}}]`},
		{"not JSON", `hello`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"empty batch", `[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}`},
		{"bad params", `{"jsonrpc":"2.0","id":3,"method":"eth_getTransactionByHash","params":["0x12"]}`, ""},
		{"unsubscribe unknown id", `{"jsonrpc":"2.0","id":4,"method":"eth_unsubscribe","params":["0x00"]}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"subscription not found"}}`},
		{"unknown subscription", `{"jsonrpc":"2.0","id":5,"method":"eth_subscribe","params":["nope"]}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"no \"nope\" subscription in eth namespace"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := roundTrip(t, c, tc.in)
			if tc.want == "" {
				if !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, `"id":3`) {
					t.Fatalf("got %s", got)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	t.Run("binary frame read as JSON", func(t *testing.T) {
		if err := c.WriteMessage(websocket.BinaryMessage, []byte(`{"jsonrpc":"2.0","id":9,"method":"eth_chainId","params":[]}`)); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, c); got != `{"jsonrpc":"2.0","id":9,"result":"0x539"}` {
			t.Fatalf("got %s", got)
		}
	})
}

// TestWebSocketSameRulesAsHTTP: a call answers the same bytes on both transports.
func TestWebSocketSameRulesAsHTTP(t *testing.T) {
	t.Parallel()
	s := gw
	c := dialGW(t)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"admin_nodeInfo","params":[]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getLogs","params":[{"blockHash":"0x0000000000000000000000000000000000000000000000000000000000000001","fromBlock":"0x1"}]}`,
		`{"jsonrpc":"2.0","id":3,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001"}]}`,
		`{"jsonrpc":"1.0","method":"eth_chainId","params":[]}`, // no id, not a valid request: answered with id null
	} {
		resp, err := http.Post(s.URL()+"/v3/"+s.GeneratedKey, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = fmt.Fprint(&b, readAll(resp))
		if got := roundTrip(t, c, body); got != b.String() {
			t.Fatalf("ws %s\nhttp %s", got, b.String())
		}
	}
	// Subscriptions exist on WebSocket only, and HTTP says so as go-ethereum does.
	resp, err := http.Post(s.URL()+"/v3/"+s.GeneratedKey, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(resp); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"notifications not supported"}}` {
		t.Fatalf("eth_subscribe over HTTP: %s", got)
	}
}

func readAll(resp *http.Response) string {
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// TestWebSocketConcurrentCalls: calls on one connection run concurrently
// and each answer carries its own id.
func TestWebSocketConcurrentCalls(t *testing.T) {
	t.Parallel()
	c := dialGW(t)
	const n = 200
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getBalance","params":["0x%040x","latest"]}`, i, i)
			if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	seen := make(map[int]bool)
	for range n {
		var r struct {
			ID     int
			Result string
			Error  any
		}
		if err := json.Unmarshal([]byte(readText(t, c)), &r); err != nil || r.Error != nil || !strings.HasPrefix(r.Result, "0x") {
			t.Fatalf("answer %+v %v", r, err)
		}
		seen[r.ID] = true
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d distinct ids, want %d", len(seen), n)
	}
}

// TestWebSocketInvalidUTF8: a message with invalid UTF-8 (in an id, a
// method name, anywhere) is never answered, since its id would make a text
// frame that is not UTF-8: the connection is closed with 1007.
func TestWebSocketInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame int
		msg   string
	}{
		{"id, text frame", websocket.TextMessage, `{"jsonrpc":"2.0","id":"a` + "\xff" + `","method":"eth_chainId"}`},
		{"method, text frame", websocket.TextMessage, `{"jsonrpc":"2.0","id":1,"method":"eth_` + "\xc3(" + `"}`},
		{"id in a batch, binary frame", websocket.BinaryMessage, `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":"` + "\xed\xa0\x80" + `","method":"eth_chainId"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialGW(t)
			if err := c.WriteMessage(tc.frame, []byte(tc.msg)); err != nil {
				t.Fatal(err)
			}
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
			_, got, err := c.ReadMessage()
			var ce *websocket.CloseError
			if !asClose(err, &ce) {
				t.Fatalf("want a close frame, got message %q, error %v", got, err)
			}
			if ce.Code != websocket.CloseInvalidFramePayloadData || ce.Text != "parse error: invalid UTF-8" {
				t.Fatalf("close %d %q, want 1007 %q", ce.Code, ce.Text, "parse error: invalid UTF-8")
			}
		})
	}
}
