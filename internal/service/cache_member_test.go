package service_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// finalityNode is an EVM node on loopback at head 0x40 whose finalized
// block is its own (fin); every block it serves names the node in its
// extraData, so that a test sees which node an answer came from.
func finalityNode(t *testing.T, tag string, fin uint64) *httptest.Server {
	t.Helper()
	block := func(n uint64) string {
		return fmt.Sprintf(`{"number":"0x%x","hash":"0x%064x","parentHash":"0x%064x","gasLimit":"0x1c9c380","extraData":"0x%x"}`, n, n+1, n, tag)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil {
			http.Error(w, "one call at a time", http.StatusBadRequest)
			return
		}
		result := "null"
		switch req.Method {
		case "eth_chainId":
			result = `"0x539"`
		case "eth_blockNumber":
			result = `"0x40"`
		case "eth_getBlockByNumber":
			var at string
			_ = json.Unmarshal(req.Params[0], &at)
			switch at {
			case "latest":
				result = block(0x40)
			case "finalized", "safe":
				result = block(fin)
			default:
				var n uint64
				if _, err := fmt.Sscanf(at, "0x%x", &n); err == nil {
					result = block(n)
				}
			}
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCacheKeepsOnlyWhatTheAnsweringNodeHasFinal: two nodes on one chain,
// one whose finality lags (finalized 0x10, the other's 0x40). Blocks
// 0x20..0x29 are final for the network, but an answer is kept only when
// it came from the node that has it final: once kept, every answer for
// the key is that node's.
func TestCacheKeepsOnlyWhatTheAnsweringNodeHasFinal(t *testing.T) {
	ahead, behind := finalityNode(t, "ahead", 0x40), finalityNode(t, "behind", 0x10)
	cfg := servicetest.Config(t)
	off := false
	cfg.Networks = []config.Network{{Name: "finality", Family: "evm",
		Upstreams: []config.Upstream{{Name: "ahead", URL: ahead.URL}, {Name: "behind", URL: behind.URL}},
		Pool:      config.Pool{HeadInterval: 50 * time.Millisecond},
		// The members' blocks are made up by number and hash only (no
		// header fields): what is cached is the question here, not
		// whether a header hashes to its hash.
		Verify: config.Verify{BlockHash: &off, TransactionsRoot: &off}}}
	s := servicetest.Start(t, cfg)
	pool := s.Networks()[0].Pool
	testenv.WaitFor(t, 30*time.Second, "the pool knows the chain and its finalized block", func() bool {
		return pool.Finalized() == 0x40 && pool.Chain() != ""
	})
	url := s.URL() + "/v3/" + s.GeneratedKey
	fromBehind := fmt.Sprintf("%x", "behind")
	for n := 0x20; n < 0x2a; n++ {
		params := fmt.Sprintf(`["0x%x",false]`, n)
		var last []string
		for range 30 {
			last = append(last, string(rpcResult(t, url, "eth_getBlockByNumber", params)))
		}
		for _, got := range last[25:] {
			if strings.Contains(got, fromBehind) {
				t.Fatalf("block 0x%x: the answer of the node that does not have it final is served again and again (kept): %s", n, got)
			}
		}
	}
}
