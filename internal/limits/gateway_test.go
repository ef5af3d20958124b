package limits_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// gateway starts nodegate in front of upstreamURL; its one key is on plan
// "team", so plan overrides for "team" apply to every call.
func gateway(t testing.TB, upstreamURL string, tune func(*config.Config)) string {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.Upstream = upstreamURL
	if tune != nil {
		tune(&cfg)
	}
	s := servicetest.Start(t, cfg)
	return s.URL() + "/v3/" + s.GeneratedKey
}

// answer is a JSON-RPC response with result and error kept raw.
type answer struct {
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (a answer) err(t testing.TB) rpcError {
	t.Helper()
	var e rpcError
	if a.Error == nil {
		t.Fatalf("want an error, got result of %d bytes", len(a.Result))
	}
	if err := json.Unmarshal(a.Error, &e); err != nil {
		t.Fatalf("error object %s: %v", a.Error, err)
	}
	return e
}

func call(t testing.TB, url, method, params string) answer {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	_, out := testenv.PostJSON(t, url, body)
	var a answer
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("answer %.200s: %v", out, err)
	}
	return a
}

// logs counts the logs of a result array.
func logs(t testing.TB, a answer) int {
	t.Helper()
	if a.Error != nil {
		t.Fatalf("want logs, got error %s", a.Error)
	}
	var l []json.RawMessage
	if err := json.Unmarshal(a.Result, &l); err != nil {
		t.Fatalf("result is not an array: %v", err)
	}
	return len(l)
}

func filter(from, to string, topic fmt.Stringer) string {
	parts := []string{}
	if from != "" {
		parts = append(parts, fmt.Sprintf(`"fromBlock":%q`, from))
	}
	if to != "" {
		parts = append(parts, fmt.Sprintf(`"toBlock":%q`, to))
	}
	if topic != nil {
		parts = append(parts, fmt.Sprintf(`"topics":[%q]`, topic.String()))
	}
	return "[{" + strings.Join(parts, ",") + "}]"
}

func hexn(n uint64) string { return fmt.Sprintf("0x%x", n) }

// counter is a real reverse proxy in front of the node that records the
// eth_getLogs calls nodegate makes.
type counter struct {
	mu     sync.Mutex
	ranges []string
	calls  atomic.Int64
}

func countingProxy(t testing.TB, target string) (string, *counter) {
	t.Helper()
	c := &counter{}
	srv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		c.calls.Add(1)
		if req.Method == "eth_getLogs" && len(req.Params) > 0 {
			var f struct{ FromBlock, ToBlock string }
			_ = json.Unmarshal(req.Params[0], &f)
			c.mu.Lock()
			c.ranges = append(c.ranges, f.FromBlock+".."+f.ToBlock)
			c.mu.Unlock()
		}
		out, err := http.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer out.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, out.Body)
	}))
	return srv, c
}

func (c *counter) logRanges() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.ranges...)
}
