package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// countingProxy is a real reverse proxy in front of a node that counts the
// requests that reach it (batches and calls in them) and can refuse or
// trim batches, as some nodes and providers do.
type countingProxy struct {
	srv             *httptest.Server
	posts, batches  atomic.Int64
	batchCalls      atomic.Int64
	refuseBatches   atomic.Bool // answer every batch with one -32600 error object
	failBatches     atomic.Bool // answer every batch with HTTP 502
	dropFromBatches atomic.Bool // leave the first answer out of every batch
	headReads       atomic.Int64
}

func newCountingProxy(t *testing.T, target string) *countingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if !p.dropFromBatches.Load() || resp.Request.Header.Get("X-Batch") == "" {
			return nil
		}
		var answers []json.RawMessage
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if json.Unmarshal(raw, &answers) == nil && len(answers) > 1 {
			raw, _ = json.Marshal(answers[1:])
		}
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		resp.ContentLength = int64(len(raw))
		resp.Header.Del("Content-Length")
		return nil
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			var calls []json.RawMessage
			_ = json.Unmarshal(trimmed, &calls)
			p.posts.Add(1)
			p.batches.Add(1)
			p.batchCalls.Add(int64(len(calls)))
			switch {
			case p.failBatches.Load():
				http.Error(w, "bad gateway", http.StatusBadGateway)
				return
			case p.refuseBatches.Load():
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}`)
				return
			}
			r.Header.Set("X-Batch", "1")
		} else if bytes.Contains(body, []byte(`"eth_blockNumber"`)) || bytes.Contains(body, []byte(`"eth_getBlockByNumber","params":["latest"`)) ||
			bytes.Contains(body, []byte(`"eth_getBlockByNumber","params":["finalized"`)) || bytes.Contains(body, []byte(`"eth_getBlockByNumber","params":["safe"`)) {
			p.headReads.Add(1) // the pool's own head tracking, not client calls
		} else {
			p.posts.Add(1)
			if testing.Verbose() {
				fmt.Printf("single: %s\n", body)
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// batchCase is one call of the test batch.
type batchCase struct {
	id, method, params string
	forwarded          bool // reaches the node (else refused at the gateway)
}

// unfundedRawTx is a well-formed signed transaction (unprotected, so any
// chain's) from an account that holds nothing: checked and sent on, it is
// refused by the node, never mined.
func unfundedRawTx() string {
	key, _ := crypto.ToECDSA(bytes.Repeat([]byte{0x42}, 32))
	tx, err := types.SignNewTx(key, types.HomesteadSigner{}, &types.LegacyTx{Gas: 21000, GasPrice: big.NewInt(1)})
	if err != nil {
		panic(err)
	}
	raw, _ := tx.MarshalBinary()
	return hexutil.Encode(raw)
}

// testBatch has 16 calls: as many as a batch runs at once, so that all of
// them reach the route together.
func testBatch() []batchCase {
	var cs []batchCase
	for i := 0; i < 7; i++ {
		cs = append(cs, batchCase{fmt.Sprintf(`"blk-%d"`, i), "eth_getBlockByNumber", fmt.Sprintf(`["0x%x",false]`, i), true})
	}
	for i := 0; i < 3; i++ {
		cs = append(cs, batchCase{fmt.Sprint(100 + i), "eth_getTransactionByHash", fmt.Sprintf(`["0x%064x"]`, i+1), true}) // unknown: null
	}
	cs = append(cs,
		batchCase{`null`, "eth_chainId", `[]`, true},
		batchCase{`0`, "eth_getBalance", `["0x0000000000000000000000000000000000000000","0x1"]`, true},
		batchCase{`"bad-params"`, "eth_getTransactionByHash", `["0x12"]`, false},
		batchCase{`"refused"`, "eth_sendTransaction", `[{}]`, false},
		batchCase{`"write"`, "eth_sendRawTransaction", `["` + unfundedRawTx() + `"]`, true}, // a write: sent alone, answered with the node's error
		batchCase{`-1`, "eth_getCode", `["0x0000000000000000000000000000000000000000","0x2"]`, true},
	)
	return cs
}

func batchBody(cs []batchCase) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, c.id, c.method, c.params)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

type answer struct {
	ID     json.RawMessage  `json:"id"`
	Result json.RawMessage  `json:"result"`
	Error  *json.RawMessage `json:"error"`
}

func postBatch(t *testing.T, url, body string) []answer {
	t.Helper()
	status, raw := testenv.PostJSON(t, url, body)
	var out []answer
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("status %d, %s: %v", status, raw, err)
	}
	return out
}

// direct is the node's own answer to one call: what the client must get.
func direct(t *testing.T, nodeURL string, c batchCase) answer {
	t.Helper()
	a := postBatch(t, nodeURL, "["+fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, c.id, c.method, c.params)+"]")
	return a[0]
}

func batchService(t *testing.T, upstreams ...config.Upstream) string {
	t.Helper()
	cfg := config.Ephemeral(t.TempDir())
	cfg.NoStarknet = true
	cfg.APIKeys = []string{netKey}
	for i := range upstreams {
		upstreams[i].Archive = true // not probed for its floors: the tests count every request
	}
	cfg.Networks = []config.Network{{Name: "main", Family: "evm", Upstreams: upstreams}}
	return start(t, cfg).URL() + "/v3/" + netKey
}

// checkBatch sends the test batch and checks every answer against the
// node's own, by id and position.
func checkBatch(t *testing.T, gw, nodeURL string) {
	t.Helper()
	cs := testBatch()
	got := postBatch(t, gw, batchBody(cs))
	if len(got) != len(cs) {
		t.Fatalf("%d answers for %d calls", len(got), len(cs))
	}
	for i, c := range cs {
		a := got[i]
		if string(a.ID) != c.id {
			t.Fatalf("answer %d: id %s, want %s", i, a.ID, c.id)
		}
		if !c.forwarded {
			if a.Error == nil {
				t.Fatalf("answer %d (%s): %s, want the gateway's error", i, c.method, a.Result)
			}
			continue
		}
		want := direct(t, nodeURL, c)
		if string(a.Result) != string(want.Result) || (a.Error == nil) != (want.Error == nil) {
			t.Fatalf("answer %d (%s %s): %s %v, want %s %v", i, c.method, c.params, a.Result, a.Error, want.Result, want.Error)
		}
		if a.Error != nil {
			var ge, we struct{ Code int }
			_ = json.Unmarshal(*a.Error, &ge)
			_ = json.Unmarshal(*want.Error, &we)
			if ge.Code != we.Code {
				t.Fatalf("answer %d (%s): error %s, want %s", i, c.method, *a.Error, *want.Error)
			}
		}
	}
}

// forwardable counts the calls of the test batch that reach a node.
func forwardable() (reads, writes int64) {
	for _, c := range testBatch() {
		switch {
		case !c.forwarded:
		case c.method == "eth_sendRawTransaction":
			writes++
		default:
			reads++
		}
	}
	return reads, writes
}

// TestUpstreamBatches: a client batch goes to a real node (a `nodegate
// node` process) as one upstream batch plus the write alone; answers are
// spliced back by id, in order, each with its own result or error. With
// batch_size 1 every call goes alone; with batch_size 5 the reads go in
// chunks of five.
func TestUpstreamBatches(t *testing.T) {
	node := startNode(t, chainDir, "127.0.0.1:0")
	reads, writes := forwardable()
	cases := []struct {
		name       string
		batchSize  int
		wantPosts  int64
		wantCalled int64 // calls inside upstream batches
	}{
		{"default", 0, 1 + writes, reads},
		{"chunks of 5", 5, (reads+4)/5 + writes, reads},
		{"off", 1, reads + writes, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := newCountingProxy(t, node.url())
			gw := batchService(t, config.Upstream{Name: "a", URL: proxy.srv.URL, BatchSize: tc.batchSize})
			proxy.posts.Store(0)
			checkBatch(t, gw, node.url())
			if got := proxy.posts.Load(); got != tc.wantPosts {
				t.Errorf("upstream requests = %d, want %d", got, tc.wantPosts)
			}
			if got := proxy.batchCalls.Load(); got != tc.wantCalled {
				t.Errorf("calls in upstream batches = %d, want %d", got, tc.wantCalled)
			}
		})
	}
}

// TestUpstreamBatchFallback: a member that fails a batch as a whole (HTTP
// 502, or one error object refusing batches), or leaves an answer out,
// still gets every call answered: those calls go alone, under the usual
// retry rules.
func TestUpstreamBatchFallback(t *testing.T) {
	node := startNode(t, chainDir, "127.0.0.1:0")
	reads, writes := forwardable()
	cases := []struct {
		name      string
		set       func(p *countingProxy)
		wantPosts int64
	}{
		{"refused", func(p *countingProxy) { p.refuseBatches.Store(true) }, 1 + reads + writes},
		{"HTTP 502", func(p *countingProxy) { p.failBatches.Store(true) }, 1 + reads + writes},
		{"answer left out", func(p *countingProxy) { p.dropFromBatches.Store(true) }, 1 + 1 + writes},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := newCountingProxy(t, node.url())
			gw := batchService(t, config.Upstream{Name: "a", URL: proxy.srv.URL})
			tc.set(proxy)
			proxy.posts.Store(0)
			checkBatch(t, gw, node.url())
			if got := proxy.posts.Load(); got != tc.wantPosts {
				t.Errorf("upstream requests = %d, want %d", got, tc.wantPosts)
			}
		})
	}
}
