package starknet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/nodegate/nodegate/internal/starknet/starknettest"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
	"github.com/nodegate/nodegate/jsonrpc"
)

// scriptNode is a Starknet node on loopback that answers from a script:
// "method params" -> result or error object. It counts what it was asked.
type scriptNode struct {
	mu     sync.Mutex
	script map[string]string // key "method params"; value `{"result":...}` or `{"error":...}`
	calls  []string
}

func (n *scriptNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	key := req.Method + " " + string(req.Params)
	n.mu.Lock()
	n.calls = append(n.calls, key)
	answer, ok := n.script[key]
	n.mu.Unlock()
	if !ok {
		answer = fmt.Sprintf(`{"error":{"code":-32601,"message":"Method not found: %s"}}`, req.Method)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, req.ID, answer[1:len(answer)-1])
}

func (n *scriptNode) asked() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.calls...)
}

// startNode serves h on 127.0.0.1 and returns an HTTP upstream for it.
// startNode serves h and answers an upstream at its URL plus path.
func startNode(t *testing.T, h http.Handler, path ...string) upstream.Upstream {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	up, err := transport.NewHTTP(srv.URL + strings.Join(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	return up
}

// recordedPending is the result of the recorded 0.7 getBlockWithTxs.
func recordedPending(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/getblockwithtxs_pending_0.7.json")
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := jsonrpc.DecodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return `{"result":` + string(resp.Result) + `}`
}

func node07(t *testing.T) *scriptNode {
	return &scriptNode{script: map[string]string{
		`starknet_specVersion []`:                    `{"result":"0.7.1"}`,
		`starknet_getBlockWithTxs ["pending"]`:       recordedPending(t),
		`starknet_getBlockWithTxs ["latest"]`:        `{"result":{}}`,
		`starknet_pendingTransactions []`:            `{"error":{"code":-32601,"message":"Method not found"}}`,
		`starknet_getBlockWithTxs ["pre_confirmed"]`: `{"error":{"code":-32602,"message":"Invalid params"}}`,
	}}
}

func node09(t *testing.T) *scriptNode {
	return &scriptNode{script: map[string]string{
		`starknet_specVersion []`:                    `{"result":"0.9.0"}`,
		`starknet_getBlockWithTxs ["pending"]`:       `{"error":{"code":-32602,"message":"Invalid params","data":{"reason":"unknown variant pending"}}}`,
		`starknet_getBlockWithTxs ["pre_confirmed"]`: recordedPending(t),
	}}
}

func jsonEqual(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestPendingFromRecordedBlock maps a recorded 0.7 pending block to docs/spec.md's
// pending transaction objects.
func TestPendingFromRecordedBlock(t *testing.T) {
	n := node07(t)
	p, err := NewPending(startNode(t, n), PendingAuto)
	if err != nil {
		t.Fatal(err)
	}
	got, e := p.Serve(context.Background(), MethodRollupPending, json.RawMessage("[]"))
	if e != nil {
		t.Fatal(e)
	}
	want, err := os.ReadFile("testdata/rollup_pending_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, got, want)
	if p.Mode() != PendingFromBlock {
		t.Fatalf("mode %s after spec 0.7.1", p.Mode())
	}
	// Spec order: the docs/spec.md fields lead each object.
	if !strings.HasPrefix(string(got), `[{"type":"INVOKE","transaction_hash":"0x51b2`) {
		t.Fatalf("order: %.80s", got)
	}
	// Starknet's own name answers the node's transactions untouched.
	raw, e := p.Serve(context.Background(), MethodStarknetPending, nil)
	if e != nil {
		t.Fatal(e)
	}
	recorded, err := os.ReadFile("testdata/getblockwithtxs_pending_0.7.json")
	if err != nil {
		t.Fatal(err)
	}
	if txs := extractTxs(t, recorded); string(raw) != string(txs) {
		t.Fatalf("starknet_pendingTransactions was rewritten:\n%s\nwant\n%s", raw, txs)
	}
	if got := n.asked(); got[0] != "starknet_specVersion []" || strings.Contains(strings.Join(got, "|"), "starknet_pendingTransactions") {
		t.Fatalf("node asked %q", got)
	}
}

func TestPendingDetect(t *testing.T) {
	tests := []struct {
		name     string
		node     http.Handler
		want     PendingMode
		wantTag  bool // pre_confirmed
		wantFail bool
	}{
		{name: "0.7.1 reads the pending block", node: node07(t), want: PendingFromBlock},
		{name: "0.9.0 reads pre_confirmed", node: node09(t), want: PendingFromBlock, wantTag: true},
		{name: "pre-0.3 node without specVersion forwards", node: &scriptNode{}, want: PendingForward},
		{name: "garbage version", node: &scriptNode{script: map[string]string{`starknet_specVersion []`: `{"result":"latest"}`}}, want: PendingAuto, wantFail: true},
		{name: "node fault", node: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(502) }), want: PendingAuto, wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPending(startNode(t, tt.node), PendingAuto)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Detect(context.Background())
			if (err != nil) != tt.wantFail || p.Mode() != tt.want || p.preConfirmed.Load() != tt.wantTag {
				t.Fatalf("Detect: %v, mode %s, pre_confirmed %v", err, p.Mode(), p.preConfirmed.Load())
			}
		})
	}
}

// TestPendingTagFallback: a node configured as "block" that no longer knows
// "pending" is asked for "pre_confirmed" once, which is then kept.
func TestPendingTagFallback(t *testing.T) {
	n := node09(t)
	p, _ := NewPending(startNode(t, n), PendingFromBlock)
	want, _ := os.ReadFile("testdata/rollup_pending_expected.json")
	for range 2 {
		got, e := p.Serve(context.Background(), MethodRollupPending, json.RawMessage("[]"))
		if e != nil {
			t.Fatal(e)
		}
		jsonEqual(t, got, want)
	}
	asked := n.asked()
	wantAsked := []string{`starknet_getBlockWithTxs ["pending"]`, `starknet_getBlockWithTxs ["pre_confirmed"]`, `starknet_getBlockWithTxs ["pre_confirmed"]`}
	if !reflect.DeepEqual(asked, wantAsked) {
		t.Fatalf("asked %q, want %q", asked, wantAsked)
	}
}

// TestPendingForwardFallsBack: in auto mode, a node whose version could not
// be read but that has no starknet_pendingTransactions is read by block.
func TestPendingForwardFallsBack(t *testing.T) {
	n := node07(t)
	n.script[`starknet_specVersion []`] = `{"result":"unknown"}`
	p, _ := NewPending(startNode(t, n), PendingAuto)
	if _, e := p.Serve(context.Background(), MethodRollupPending, nil); e != nil {
		t.Fatal(e)
	}
	if p.Mode() != PendingFromBlock {
		t.Fatalf("mode %s", p.Mode())
	}
}

func TestPendingErrors(t *testing.T) {
	nodeErr := &scriptNode{script: map[string]string{
		`starknet_pendingTransactions []`: `{"error":{"code":63,"message":"An unexpected error occurred","data":"sequencer busy"}}`,
	}}
	badTx := &scriptNode{script: map[string]string{
		`starknet_pendingTransactions []`: `{"result":[{"type":"INVOKE","transaction_hash":"0x` + strings.Repeat("f", 64) + `","version":"0x1"}]}`,
	}}
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	downUp, _ := transport.NewHTTP(downURL)
	tests := []struct {
		name     string
		up       upstream.Upstream
		method   string
		params   string
		wantCode int
		wantText string
		wantRaw  string
	}{
		{name: "params not empty", up: startNode(t, nodeErr), method: MethodRollupPending, params: `["pending"]`, wantCode: -32602, wantText: "too many arguments, want at most 0"},
		{name: "named params", up: startNode(t, nodeErr), method: MethodRollupPending, params: `{"block_id":"pending"}`, wantCode: -32602, wantText: "unknown parameter"},
		{name: "node error passes through", up: startNode(t, nodeErr), method: MethodRollupPending, params: `[]`, wantCode: 63, wantRaw: `{"code":63,"message":"An unexpected error occurred","data":"sequencer busy"}`},
		{name: "felt over prime from the node", up: startNode(t, badTx), method: MethodRollupPending, params: `[]`, wantCode: -32603, wantText: "transaction_hash: felt is not below the field prime"},
		{name: "node down", up: downUp, method: MethodRollupPending, params: `[]`, wantCode: -32603, wantText: "upstream unavailable"},
		{name: "other method", up: startNode(t, nodeErr), method: "starknet_chainId", params: `[]`, wantCode: -32601},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := NewPending(tt.up, PendingForward)
			res, e := p.Serve(context.Background(), tt.method, json.RawMessage(tt.params))
			if e == nil {
				t.Fatalf("answered %s", res)
			}
			if e.Code != tt.wantCode || !strings.Contains(e.Message, tt.wantText) || (tt.wantRaw != "" && string(e.AppendJSON(nil)) != tt.wantRaw) {
				t.Fatalf("error %d %q raw %s", e.Code, e.Message, e.AppendJSON(nil))
			}
		})
	}
	if got := nodeErr.asked(); len(got) != 1 {
		t.Fatalf("node asked %q; refused params must not reach it", got)
	}
}

// checkPendingObject checks every field of docs/spec.md's pending transaction
// object, with its type.
func checkPendingObject(t *testing.T, o map[string]json.RawMessage) {
	t.Helper()
	for _, f := range pendingFields {
		v, ok := o[f]
		if !ok {
			t.Fatalf("field %s missing from %v", f, o)
		}
		switch f {
		case "type":
			starknettest.Unquote(t, v)
		case "signature", "calldata":
			if err := checkFelts(v); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		default:
			if err := checkFelt(v); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
	}
}

func TestMapPendingTxBad(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "not an object", in: `[1]`, want: "not an object"},
		{name: "no type", in: `{"transaction_hash":"0x1","version":"0x1"}`, want: "type"},
		{name: "no hash", in: `{"type":"INVOKE","version":"0x1"}`, want: "transaction_hash: missing field"},
		{name: "calldata not felts", in: `{"type":"INVOKE","transaction_hash":"0x1","version":"0x0","calldata":[1]}`, want: "calldata: [0]"},
		{name: "bad resource bounds", in: `{"type":"INVOKE","transaction_hash":"0x1","version":"0x3","resource_bounds":{"l1_gas":{"max_amount":"1","max_price_per_unit":"0x1"}}}`, want: "l1_gas.max_amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := mapPendingTx(nil, []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("mapPendingTx = %s, %v; want error with %q", out, err, tt.want)
			}
		})
	}
}

func FuzzMapPendingTx(f *testing.F) {
	raw, err := os.ReadFile("testdata/getblockwithtxs_pending_0.7.json")
	if err != nil {
		f.Fatal(err)
	}
	_ = jsonrpc.Elements(extractTxs(f, raw), func(elem []byte) bool { f.Add(append([]byte(nil), elem...)); return true })
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := mapPendingTx(nil, in)
		if err == nil && !json.Valid(out) {
			t.Fatalf("mapPendingTx(%q) wrote invalid JSON %q", in, out)
		}
	})
}

func extractTxs(t testing.TB, raw []byte) []byte {
	_, resp, err := jsonrpc.DecodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		Txs json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(resp.Result, &b); err != nil {
		t.Fatal(err)
	}
	return b.Txs
}

func TestDevnetPendingMode(t *testing.T) {
	for in, want := range map[PendingMode]PendingMode{PendingAuto: PendingForward, "": PendingForward, PendingForward: PendingForward, PendingFromBlock: PendingFromBlock} {
		if got := DevnetPendingMode(in); got != want {
			t.Fatalf("DevnetPendingMode(%q) = %q, want %q", in, got, want)
		}
	}
}
