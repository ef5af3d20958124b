package service

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// parentLiar is a proxy in front of a node that gives every block it is
// asked for by number another parentHash.
func parentLiar(t *testing.T, nodeURL string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp, err := http.Post(nodeURL, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if bytes.Contains(body, []byte(`"eth_getBlockByNumber","params":["0x`)) {
			out = bytes.Replace(out, []byte(`"parentHash":"0x`), []byte(`"parentHash":"0xff`), 1)
			out = bytes.Replace(out, []byte(`"parentHash":"0xff00`), []byte(`"parentHash":"0xff`), 1) // keep 32 bytes
		}
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestServedAnswersAreVerified: with the checks on by default, a member
// that corrupts a block's parent hash is quarantined at its first such
// answer (shown in /admin/upstreams, counted in the metric) and the
// client gets the honest member's block; with the check switched off
// for the network, the corrupted block is what the client gets.
func TestServedAnswersAreVerified(t *testing.T) {
	node := startNode(t, "", "127.0.0.1:0")
	direct := testenv.Call(t, node.url(), "eth_getBlockByNumber", `["0x0",false]`)
	for name, off := range map[string]bool{"checks on by default": false, "block_hash off": true} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Node.ChainDir = ""
			cfg.NoStarknet = true
			nc := config.Network{Name: "main", Upstreams: []config.Upstream{
				{Name: "liar", URL: parentLiar(t, node.url())}, {Name: "honest", URL: node.url(), Priority: 1},
			}}
			if off {
				f := false
				nc.Verify.BlockHash = &f
			}
			cfg.Networks = []config.Network{nc}
			s := start(t, cfg)
			got := testenv.Call(t, s.URL()+"/v3/"+s.GeneratedKey, "eth_getBlockByNumber", `["0x0",false]`)
			if got.Error != nil {
				t.Fatalf("%+v", got.Error)
			}
			honest := sameBlock(t, got.Result, direct.Result)
			if off {
				if honest {
					t.Fatal("with block_hash off the liar's block was still refused")
				}
				return
			}
			if !honest {
				t.Fatalf("a corrupted block was delivered: %s", got.Result)
			}
			var liar struct {
				Healthy        bool   `json:"healthy"`
				VerifyFailures uint64 `json:"verify_failures"`
				LastError      string `json:"last_error"`
			}
			for _, n := range adminUpstreams(t, s) {
				for _, m := range n.Upstreams {
					if m.Name == "liar" {
						liar.Healthy, liar.VerifyFailures, liar.LastError = m.Healthy, m.VerifyFailures, m.LastError
					}
				}
			}
			if liar.Healthy || liar.VerifyFailures != 1 || !strings.Contains(liar.LastError, "block_hash") {
				t.Fatalf("the liar in /admin/upstreams: %+v", liar)
			}
			rec := httptest.NewRecorder()
			s.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			if want := `nodegate_upstream_verify_failures_total{check="block_hash",network="main",upstream="liar"} 1`; !strings.Contains(rec.Body.String(), want) {
				t.Fatalf("metrics lack %s", want)
			}
		})
	}
}

// sameBlock reports whether two block answers are the same block.
func sameBlock(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not blocks: %s %s", a, b)
	}
	return x["parentHash"] == y["parentHash"] && x["hash"] == y["hash"]
}
