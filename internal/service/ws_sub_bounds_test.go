package service_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// wsAsk sends one call on c and returns the answer's result and error.
func wsAsk(t *testing.T, c *websocket.Conn, id int, method, params string) (json.RawMessage, *struct {
	Code    int
	Message string
}) {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var a struct {
			ID     *int
			Result json.RawMessage
			Error  *struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal(msg, &a); err != nil {
			t.Fatalf("%s: %s", msg, err)
		}
		if a.ID != nil && *a.ID == id { // notifications have no id
			return a.Result, a.Error
		}
	}
}

func addresses(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`"0x%040x"`, i+1)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// TestSubscriptionBounds: eth_subscribe("logs") is under get_logs_max_params
// as eth_getLogs and eth_newFilter are (a filter of 100,000 addresses is
// refused before it reaches a node), and a key's subscriptions are bounded
// across its connections by its plan's max_subscriptions.
func TestSubscriptionBounds(t *testing.T) {
	s := start(t, func(c *config.Config) {
		c.Limits.GetLogsMaxParams = 10
		c.Plans["team"] = config.Plan{MaxSubscriptions: 3}
	})
	dial := func() *websocket.Conn {
		c, _, err := websocket.DefaultDialer.Dial(wsEndpoint(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := dial(), dial()
	for _, tc := range []struct {
		name, method, params string
		wantCode             int
	}{
		{"logs subscription, 11 addresses", "eth_subscribe", `["logs",{"address":` + addresses(11) + `}]`, -32005},
		{"logs subscription, 100,000 addresses", "eth_subscribe", `["logs",{"address":` + addresses(100_000) + `}]`, -32005},
		{"logs subscription, 6 addresses and 5 topics", "eth_subscribe", `["logs",{"address":` + addresses(6) + `,"topics":[["0x` + strings.Repeat("1", 64) + `","0x` + strings.Repeat("2", 64) + `"],null,["0x` + strings.Repeat("3", 64) + `","0x` + strings.Repeat("4", 64) + `","0x` + strings.Repeat("5", 64) + `"]]}]`, -32005},
		{"log filter, 11 addresses", "eth_newFilter", `[{"address":` + addresses(11) + `}]`, -32005},
		{"logs subscription, 10 addresses", "eth_subscribe", `["logs",{"address":` + addresses(10) + `}]`, 0},
	} {
		_, e := wsAsk(t, a, 1, tc.method, tc.params)
		switch {
		case tc.wantCode == 0 && e != nil:
			t.Fatalf("%s: %d %s", tc.name, e.Code, e.Message)
		case tc.wantCode != 0 && (e == nil || e.Code != tc.wantCode || !strings.Contains(e.Message, "max parameters (10)")):
			t.Fatalf("%s: %+v, want %d over the parameter limit", tc.name, e, tc.wantCode)
		}
	}
	// The key holds one subscription (on a); two more on b, then none.
	for i := range 2 {
		if _, e := wsAsk(t, b, 10+i, "eth_subscribe", `["newHeads"]`); e != nil {
			t.Fatalf("subscription %d of 3: %+v", i+2, e)
		}
	}
	if _, e := wsAsk(t, b, 20, "eth_subscribe", `["newHeads"]`); e == nil || e.Code != -32005 || !strings.Contains(e.Message, "plan limit 3") {
		t.Fatalf("fourth subscription of the key: %+v", e)
	}
	a.Close() // its subscription ends with it
	testenv.WaitFor(t, 10*time.Second, "the closed connection's subscription is given back", func() bool {
		_, e := wsAsk(t, b, 30, "eth_subscribe", `["newHeads"]`)
		return e == nil
	})
}
