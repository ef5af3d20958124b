package observe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestMetricsMoveWithTraffic sends real calls through a real nodegate and
// reads each family back: calls by method, code and plan, durations,
// upstream attempts, requests refused before any call, rate-limit
// decisions, heads and lag, WebSocket connections, subscriptions and
// notifications, the key store's age. A made-up method name never
// becomes a label.
func TestMetricsMoveWithTraffic(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Node.BlockTime = 200 * time.Millisecond })
	net := s.Networks()[0].Name
	url := s.URL() + "/v3/" + s.GeneratedKey
	const madeUp = "eth_madeUpByTheClient123"

	for range 5 {
		if st, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, nil); st != 200 || !strings.Contains(body, `"result"`) {
			t.Fatalf("eth_blockNumber: %d %s", st, body)
		}
	}
	post(t, url, `{"jsonrpc":"2.0","id":1,"method":"`+madeUp+`","params":[]}`, nil)
	post(t, url, `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"`+madeUp+`"},7]`, nil)
	if st, _ := post(t, s.URL()+"/v3/0123456789abcdef0123456789abcdef", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`, nil); st != 401 {
		t.Fatalf("unknown key: status %d, want 401", st)
	}

	team := map[string]string{"network": net, "method": "eth_blockNumber", "code": "ok", "plan": "team"}
	if v := value(t, s, "nodegate_requests_total", team); v != 5 {
		t.Errorf("requests_total%v = %v, want 5", team, v)
	}
	if v := value(t, s, "nodegate_requests_total", map[string]string{"method": "eth_chainId", "code": "ok"}); v != 1 {
		t.Errorf("eth_chainId in a batch counted %v, want 1", v)
	}
	if v := value(t, s, "nodegate_requests_total", map[string]string{"method": methods.LabelUnknown, "code": "invalid"}); v != 2 {
		t.Errorf("made-up method counted %v times under (unknown), want 2", v)
	}
	if v := value(t, s, "nodegate_requests_total", map[string]string{"method": methods.LabelInvalid, "code": "invalid"}); v != 1 {
		t.Errorf("invalid batch entry counted %v, want 1", v)
	}
	if v := value(t, s, "nodegate_requests_total", map[string]string{"network": net, "method": methods.LabelInvalid, "code": "unauthorized", "plan": "(none)"}); v != 1 {
		t.Errorf("401 before any call counted %v, want 1", v)
	}
	if v := value(t, s, "nodegate_request_duration_seconds", map[string]string{"network": net, "method": "eth_blockNumber"}); v != 5 {
		t.Errorf("request_duration_seconds count = %v, want 5", v)
	}
	if v := value(t, s, "nodegate_upstream_request_duration_seconds", map[string]string{"network": net}); v < 6 {
		t.Errorf("upstream_request_duration_seconds count = %v, want ≥ 6 (5 eth_blockNumber + eth_chainId)", v)
	}
	if v := value(t, s, "nodegate_ratelimit_decisions_total", map[string]string{"network": net, "decision": "admitted"}); v < 7 {
		t.Errorf("ratelimit_decisions_total admitted = %v, want ≥ 7", v)
	}
	if v := value(t, s, "nodegate_http_requests_in_flight", nil); v != 0 {
		t.Errorf("in flight after the requests = %v, want 0", v)
	}
	if v := value(t, s, "nodegate_keystore_refresh_age_seconds", nil); v < 0 || v > 30 {
		t.Errorf("keystore_refresh_age_seconds = %v", v)
	}
	if v := value(t, s, "nodegate_upstream_lag_blocks", map[string]string{"network": net}); v != 0 {
		t.Errorf("upstream_lag_blocks = %v, want 0 (one upstream)", v)
	}
	testenv.WaitFor(t, 30*time.Second, "the head to move", func() bool { return value(t, s, "nodegate_upstream_head", map[string]string{"network": net}) > 0 })

	// WebSocket: a connection, a newHeads subscription, notifications.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, strings.Replace(s.URL(), "http", "ws", 1)+"/ws/v3/"+s.GeneratedKey, nil)
	if err != nil {
		t.Fatalf("dial ws: %v", err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the answer, then notifications
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, _, err := ws.ReadMessage(); err != nil {
			t.Fatalf("ws read: %v", err)
		}
	}
	if v := value(t, s, "nodegate_websocket_connections", nil); v != 1 {
		t.Errorf("websocket_connections = %v, want 1", v)
	}
	if v := value(t, s, "nodegate_websocket_subscriptions", map[string]string{"network": net}); v != 1 {
		t.Errorf("websocket_subscriptions = %v, want 1", v)
	}
	if v := value(t, s, "nodegate_websocket_notifications_total", map[string]string{"network": net, "outcome": "sent"}); v < 2 {
		t.Errorf("notifications sent = %v, want ≥ 2", v)
	}
	if v := value(t, s, "nodegate_requests_total", map[string]string{"method": "eth_subscribe", "code": "ok"}); v != 1 {
		t.Errorf("eth_subscribe over ws counted %v, want 1", v)
	}
	ws.Close()
	testenv.WaitFor(t, 30*time.Second, "the connection and its subscription to be gone", func() bool {
		return value(t, s, "nodegate_websocket_connections", nil) == 0 && value(t, s, "nodegate_websocket_subscriptions", map[string]string{"network": net}) == 0
	})

	// No label anywhere carries the made-up name.
	fams, _ := s.Metrics.Gatherer().Gather()
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if strings.Contains(lp.GetValue(), "madeUp") {
					t.Errorf("%s has label %s=%q", f.GetName(), lp.GetName(), lp.GetValue())
				}
			}
		}
	}
}

// TestMetricsListeners: metrics.listen serves /metrics without a token;
// the admin listener's /metrics keeps asking for it.
func TestMetricsListeners(t *testing.T) {
	s := start(t, nil)
	post(t, s.URL()+"/v3/"+s.GeneratedKey, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`, nil)
	st, body := get(t, "http://"+s.MetricsAddr()+"/metrics", "")
	if st != 200 || !strings.Contains(body, `nodegate_requests_total{code="ok",method="eth_chainId"`) {
		t.Fatalf("metrics listener: %d\n%.2000s", st, body)
	}
	if st, _ := get(t, "http://"+s.AdminAddr()+"/metrics", ""); st != 401 {
		t.Errorf("admin /metrics without the token: %d, want 401", st)
	}
	if st, body := get(t, "http://"+s.AdminAddr()+"/metrics", adminToken); st != 200 || !strings.Contains(body, "nodegate_request_duration_seconds_bucket") {
		t.Errorf("admin /metrics with the token: %d", st)
	}
	if st, _ := get(t, "http://"+s.MetricsAddr()+"/admin/keys", ""); st != 404 {
		t.Errorf("metrics listener serves more than /metrics: /admin/keys answered %d", st)
	}
}

// TestUpstreamErrorsByClass: a dead upstream's attempts are counted under
// the connect class, and the calls under code upstream.
func TestUpstreamErrorsByClass(t *testing.T) {
	s := start(t, func(c *config.Config) {
		c.Upstream = "http://127.0.0.1:1" // nothing listens on port 1
		c.Plans["team"] = config.Plan{}   // no failover
	})
	net := s.Networks()[0].Name
	st, body := post(t, s.URL()+"/v3/"+s.GeneratedKey, `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000001","latest"]}`, nil)
	if st != 503 {
		t.Fatalf("dead upstream: %d %s", st, body)
	}
	if v := value(t, s, "nodegate_upstream_errors_total", map[string]string{"network": net, "class": "connect"}); v < 1 {
		t.Errorf("upstream_errors_total{class=connect} = %v, want ≥ 1", v)
	}
	if v := value(t, s, "nodegate_requests_total", map[string]string{"network": net, "method": "eth_getBalance", "code": "upstream"}); v != 1 {
		t.Errorf("requests_total{code=upstream} = %v, want 1", v)
	}
}
