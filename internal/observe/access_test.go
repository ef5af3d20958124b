package observe_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/observe"
	"github.com/nodegate/nodegate/internal/testenv"
)

// accessLines decodes the JSON access log lines written so far.
func accessLines(t *testing.T, buf *testenv.LogBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, line)
		}
		if m["msg"] == observe.AccessMessage {
			out = append(out, m)
		}
	}
	return out
}

// TestAccessLogJSON: with log.access and log.format json, each HTTP
// request writes one JSON line with the time, network, key id (never the
// key), method(s) through methods.Label, outcome, duration, upstream and
// bytes; a WebSocket call writes one line of its own.
func TestAccessLogJSON(t *testing.T) {
	var buf testenv.LogBuffer
	s := start(t, func(c *config.Config) { c.Log = config.Log{Format: "json", Access: true, Output: &buf} })
	key, ok := s.Keys.Lookup(s.GeneratedKey)
	if !ok {
		t.Fatal("generated key not found")
	}
	net := s.Networks()[0].Name
	url := s.URL() + "/v3/" + s.GeneratedKey
	single := `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`
	post(t, url, single, nil)
	post(t, url, `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_madeUpName"}]`, nil)
	post(t, s.URL()+"/v3/0123456789abcdef0123456789abcdef", single, nil)

	testenv.WaitFor(t, 30*time.Second, "three access lines", func() bool { return len(accessLines(t, &buf)) >= 3 })
	lines := accessLines(t, &buf)
	if len(lines) != 3 {
		t.Fatalf("%d access lines, want 3:\n%s", len(lines), buf.String())
	}
	one := lines[0]
	for field, want := range map[string]any{
		"transport": "http", "network": net, "key_id": key.ID, "method": "eth_blockNumber", "outcome": "ok",
		"status": float64(200), "calls": float64(1), "upstream": "embedded", "bytes_in": float64(len(single)),
	} {
		if one[field] != want {
			t.Errorf("single call: %s = %v, want %v (line %v)", field, one[field], want, one)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, one["time"].(string)); err != nil {
		t.Errorf("time %v: %v", one["time"], err)
	}
	if d, _ := one["duration_ms"].(float64); d <= 0 {
		t.Errorf("duration_ms = %v", one["duration_ms"])
	}
	if b, _ := one["bytes_out"].(float64); b <= 0 {
		t.Errorf("bytes_out = %v", one["bytes_out"])
	}

	batch := lines[1]
	if got := batch["methods"]; !equalList(got, "eth_chainId", "(unknown)") {
		t.Errorf("batch methods = %v, want [eth_chainId (unknown)]", got)
	}
	if got := batch["outcomes"]; !equalList(got, "ok", "invalid") {
		t.Errorf("batch outcomes = %v, want [ok invalid]", got)
	}
	if refused := lines[2]; refused["outcome"] != "unauthorized" || refused["status"] != float64(401) || refused["key_id"] != "" {
		t.Errorf("unknown key line: %v", refused)
	}

	// WebSocket: one line per call.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, strings.Replace(s.URL(), "http", "ws", 1)+"/ws/v3/"+s.GeneratedKey, nil)
	if err != nil {
		t.Fatalf("dial ws: %v", err)
	}
	defer ws.Close()
	_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`))
	_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, _, err := ws.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 30*time.Second, "the WebSocket call's line", func() bool { return len(accessLines(t, &buf)) == 4 })
	if wsLine := accessLines(t, &buf)[3]; wsLine["transport"] != "ws" || wsLine["method"] != "eth_chainId" || wsLine["key_id"] != key.ID {
		t.Errorf("ws line: %v", wsLine)
	}

	out := buf.String()
	for _, secret := range []string{s.GeneratedKey, "madeUp"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds %q:\n%s", secret, out)
		}
	}
}

// TestAccessLogOff: without log.access nothing is written per request.
func TestAccessLogOff(t *testing.T) {
	var buf testenv.LogBuffer
	s := start(t, func(c *config.Config) { c.Log = config.Log{Format: "json", Output: &buf} })
	post(t, s.URL()+"/v3/"+s.GeneratedKey, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`, nil)
	time.Sleep(300 * time.Millisecond) // three flush intervals
	if lines := accessLines(t, &buf); len(lines) != 0 {
		t.Fatalf("access lines without log.access: %v", lines)
	}
}

func equalList(v any, want ...string) bool {
	list, ok := v.([]any)
	if !ok || len(list) != len(want) {
		return false
	}
	for i := range list {
		if list[i] != want[i] {
			return false
		}
	}
	return true
}
