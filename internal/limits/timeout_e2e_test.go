package limits_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

// slowNode is a real HTTP server on loopback that answers eth_blockNumber
// at once and holds eth_getLogs for delay, or until the caller gives up:
// every give-up is reported on cancelled.
func slowNode(t testing.TB, delay time.Duration) (string, chan time.Time) {
	cancelled := make(chan time.Time, 64)
	url := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct{ Method string }
		_ = json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		switch req.Method {
		case "eth_blockNumber":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x100000"}`)
			return
		case "eth_getLogs":
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				cancelled <- time.Now()
				return
			}
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":[]}`)
	}))
	return url, cancelled
}

func expectTimeout(t *testing.T, gw, params string, cancelled chan time.Time, limit time.Duration) {
	t.Helper()
	start := time.Now()
	e := call(t, gw, "eth_getLogs", params).err(t)
	took := time.Since(start)
	if e.Code != -32005 || e.Message != "query timeout exceeded" {
		t.Fatalf("got %d %q", e.Code, e.Message)
	}
	if took < limit {
		t.Fatalf("answered after %s, before the %s limit", took, limit)
	}
	select {
	case at := <-cancelled:
		t.Logf("answered after %s; upstream call cancelled %s after the start", took.Round(time.Millisecond), at.Sub(start).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the slow node never saw its eth_getLogs cancelled")
	}
}

// TestGetLogsTimeout: a query the node does not answer in time is -32005
// and its upstream call is cancelled, in one call or split.
func TestGetLogsTimeout(t *testing.T) {
	node, cancelled := slowNode(t, 20*time.Second)
	const limit = 300 * time.Millisecond
	gw := gateway(t, node, func(cfg *config.Config) { cfg.Limits.GetLogsTimeout = limit })
	for name, params := range map[string]string{
		"one call":  `[{"fromBlock":"0x1","toBlock":"0x2"}]`,
		"split":     `[{"fromBlock":"0x0","toBlock":"latest"}]`,
		"blockHash": `[{"blockHash":"0x` + strings.Repeat("01", 32) + `"}]`,
	} {
		t.Run(name, func(t *testing.T) { expectTimeout(t, gw, params, cancelled, limit) })
	}
}

// TestGetLogsTimeoutDefault: docs/spec.md's 10 seconds, unconfigured.
func TestGetLogsTimeoutDefault(t *testing.T) {
	node, cancelled := slowNode(t, 25*time.Second)
	gw := gateway(t, node, nil)
	expectTimeout(t, gw, `[{"fromBlock":"0x1","toBlock":"0x2"}]`, cancelled, 10*time.Second)
}

// TestGetLogsTimeoutPerPlan: a plan's own timeout overrides the network's.
func TestGetLogsTimeoutPerPlan(t *testing.T) {
	node, cancelled := slowNode(t, 20*time.Second)
	gw := gateway(t, node, func(cfg *config.Config) {
		cfg.Limits.GetLogsTimeout = time.Hour
		cfg.Limits.Plans = config.PlanLimits{"team": {GetLogsTimeout: 200 * time.Millisecond}}
	})
	expectTimeout(t, gw, `[{"fromBlock":"0x1","toBlock":"0x2"}]`, cancelled, 200*time.Millisecond)
}
