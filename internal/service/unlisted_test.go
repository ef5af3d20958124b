package service

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// watchingProxy is a real reverse proxy in front of a node that counts the
// requests carrying a method (alone or in a batch) and can hold them.
type watchingProxy struct {
	srv            *httptest.Server
	alone, batched atomic.Int64
	hold           time.Duration
}

func newWatchingProxy(t *testing.T, target, method string, hold time.Duration) *watchingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &watchingProxy{hold: hold}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"`+method+`"`)) {
			if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
				p.batched.Add(1)
			} else {
				p.alone.Add(1)
			}
			select {
			case <-time.After(p.hold):
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// TestUnlistedMethodsSentOnce: a method the table does not list may be a
// write (an ERC-4337 bundler's eth_sendUserOperation, a conditional
// transaction): after a slow first member it is not sent to a second one,
// and it never goes inside an upstream batch. A network that lists it in
// idempotent_methods has it retried like a read.
func TestUnlistedMethodsSentOnce(t *testing.T) {
	node := startNode(t, chainDir, "127.0.0.1:0")
	const method = "eth_sendUserOperation"
	call := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":[{},"0x0000000000000000000000000000000000000001"]}`
	for _, tc := range []struct {
		name       string
		idempotent []string
		wantSecond int64
	}{
		{"unlisted", nil, 0},
		{"listed idempotent", []string{method}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slow := newWatchingProxy(t, node.url(), method, 3*time.Second)
			second := newWatchingProxy(t, node.url(), method, 0)
			cfg := config.Ephemeral(t.TempDir())
			cfg.NoStarknet = true
			cfg.APIKeys = []string{netKey}
			cfg.Networks = []config.Network{{Name: "main", Family: "evm", IdempotentMethods: tc.idempotent,
				Pool:      config.Pool{AttemptTimeout: 500 * time.Millisecond, FailThreshold: 100},
				Upstreams: []config.Upstream{{Name: "slow", URL: slow.srv.URL}, {Name: "second", URL: second.srv.URL, Priority: 1}}}}
			gw := start(t, cfg).URL() + "/v3/" + netKey
			status, out := testenv.PostJSON(t, gw, call)
			if got := second.alone.Load(); slow.alone.Load() != 1 || got != tc.wantSecond {
				t.Fatalf("HTTP %d %s; sent to the slow member %d times, to the second %d times (want 1 and %d)",
					status, out, slow.alone.Load(), got, tc.wantSecond)
			}
		})
	}
	t.Run("never in an upstream batch", func(t *testing.T) {
		const conditional = "eth_sendRawTransactionConditional"
		p := newWatchingProxy(t, node.url(), conditional, 0)
		gw := batchService(t, config.Upstream{Name: "a", URL: p.srv.URL})
		body := `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},` +
			`{"jsonrpc":"2.0","id":2,"method":"` + conditional + `","params":["` + unfundedRawTx() + `",{}]},` +
			`{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber","params":[]}]`
		if got := postBatch(t, gw, body); len(got) != 3 {
			t.Fatalf("%d answers", len(got))
		}
		if p.batched.Load() != 0 || p.alone.Load() != 1 {
			t.Fatalf("%s sent in %d upstream batches and %d times alone, want 0 and 1", conditional, p.batched.Load(), p.alone.Load())
		}
	})
}
