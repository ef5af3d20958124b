package starknet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

const testKey = "0123456789abcdef0123456789abcdef"

// serveNetwork runs a real gateway on 127.0.0.1 for one network and returns
// its /v3/<key> URL.
func serveNetwork(t *testing.T, n *pipeline.Network) string {
	t.Helper()
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ks, err := keys.NewCache(ctx, store, keyconfig.Defaults(), config.PlanTeam, []string{testKey}, keys.CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ks.Close)
	s := &ingress.Server{Keys: ks, Router: ingress.NewRouter(n), Pipeline: pipeline.Build(pipeline.Options{})}
	s.SetReady(true)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/v3/" + testKey
}

// starknetNetwork is the wiring the service does for a starknet network
// whose node is the embedded devnet: the devnet in a pool, and the Starknet
// family's stages with a pending-pool reader that reads through the pool.
func starknetNetwork(t *testing.T, chainID string) *pipeline.Network {
	t.Helper()
	n, _ := countedStarknetNetwork(t, chainID)
	return n
}

// countedStarknetNetwork is starknetNetwork with the bodies the devnet was
// sent, in order.
func countedStarknetNetwork(t *testing.T, chainID string) (*pipeline.Network, func() []string) {
	t.Helper()
	dev, err := devnet.New(devnet.Config{ChainID: chainID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	var (
		mu     sync.Mutex
		bodies []string
	)
	node := upstream.Func{ID: "embedded-starknet", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		return dev.Do(ctx, body)
	}}
	table := methods.NewTable(methods.FamilyStarknet)
	table.EnableDevnet()
	pool := upstream.NewPool("starknet-devnet", upstream.PoolConfig{HeadMethod: "starknet_blockNumber"}, upstream.MemberConfig{Upstream: node})
	pending, err := starknet.NewPending(pool, starknet.PendingAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := pending.Detect(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := &pipeline.Network{Name: "starknet-devnet", Methods: table, Upstream: pool, Pool: pool,
		Stages: pipeline.Starknet{Pending: pending}.Stages()}
	return n, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

func rpc(t *testing.T, url, method, params string) testenv.Answer {
	t.Helper()
	a := testenv.Call(t, url, method, params)
	if a.Status != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s %+v", method, a.Status, a.Result, a.Error)
	}
	return a
}

// TestGatewayReproducesInfuraExample sends the two mainnet transactions of
// Infura's starknet_pendingTransactions example to the embedded devnet
// through the gateway, then asks rollup_pendingTransactions: the answer must
// be Infura's documented result.
func TestGatewayReproducesInfuraExample(t *testing.T) {
	url := serveNetwork(t, starknetNetwork(t, "SN_MAIN"))
	want, err := os.ReadFile("testdata/infura_pending_example.json")
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(want, &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		tx := map[string]any{}
		for k, v := range it {
			if k != "transaction_hash" && k != "nonce" { // a v0 is sent without them
				tx[k] = v
			}
		}
		raw, _ := json.Marshal([]any{tx})
		a := rpc(t, url, "starknet_addInvokeTransaction", string(raw))
		if a.Error != nil || !strings.Contains(string(a.Result), it["transaction_hash"].(string)) {
			t.Fatalf("add: %s %+v", a.Result, a.Error)
		}
	}
	a := rpc(t, url, "rollup_pendingTransactions", "[]")
	if a.Error != nil {
		t.Fatal(a.Error)
	}
	var got, exp any
	_ = json.Unmarshal(a.Result, &got)
	_ = json.Unmarshal(want, &exp)
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("got  %s\nwant %s", a.Result, want)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, want)
	if string(a.Result) != compact.String() {
		t.Fatalf("same values, different bytes (field order):\n%s\n%s", a.Result, compact.Bytes())
	}
	// A block moves them out of the pending pool.
	if a := rpc(t, url, "devnet_createBlock", "[]"); a.Error != nil {
		t.Fatal(a.Error)
	}
	if a := rpc(t, url, "rollup_pendingTransactions", "[]"); string(a.Result) != "[]" {
		t.Fatalf("after a block: %s %+v", a.Result, a.Error)
	}
}

func TestGatewayFamilies(t *testing.T) {
	sn := serveNetwork(t, starknetNetwork(t, "SN_DEVNET"))
	var evmCalls atomic.Int32
	evmUp := upstream.Func{ID: "evm", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
		evmCalls.Add(1)
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), nil
	}}
	evmPool := upstream.NewPool("evm", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: evmUp})
	evm := serveNetwork(t, &pipeline.Network{Name: "evm", Methods: methods.NewTable(methods.FamilyEVM), Upstream: evmPool, Pool: evmPool})
	tests := []struct {
		name, url, method, params string
		wantCode                  int
		wantResult                string
	}{
		{name: "EVM spec method on the rollup network", url: sn, method: "eth_getTransactionByHash", params: `["0x` + strings.Repeat("00", 32) + `"]`, wantCode: -32601},
		{name: "EVM method on the rollup network", url: sn, method: "eth_blockNumber", params: `[]`, wantCode: -32601},
		{name: "rollup method on the EVM network", url: evm, method: "rollup_pendingTransactions", params: `[]`, wantCode: -32601},
		{name: "starknet method on the EVM network", url: evm, method: "starknet_pendingTransactions", params: `[]`, wantCode: -32601},
		{name: "devnet method on the EVM network", url: evm, method: "devnet_createBlock", params: `[]`, wantCode: -32601},
		{name: "rollup params not empty", url: sn, method: "rollup_pendingTransactions", params: `["pending"]`, wantCode: -32602},
		{name: "rollup method", url: sn, method: "rollup_pendingTransactions", params: `[]`, wantResult: `[]`},
		{name: "starknet read forwarded", url: sn, method: "starknet_chainId", params: `[]`, wantResult: `"0x534e5f4445564e4554"`},
		{name: "spec version", url: sn, method: "starknet_specVersion", params: `[]`, wantResult: `"0.10.0"`},
		{name: "block number", url: sn, method: "starknet_blockNumber", params: `[]`, wantResult: `0`},
		{name: "felt over the prime", url: sn, method: "starknet_addInvokeTransaction", params: `[{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x0","sender_address":"0x800000000000011000000000000000000000000000000000000000000000001","calldata":[]}]`, wantCode: -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := rpc(t, tt.url, tt.method, tt.params)
			if tt.wantCode != 0 {
				if a.Error == nil || a.Error.Code != tt.wantCode {
					t.Fatalf("answer %s %+v, want code %d", a.Result, a.Error, tt.wantCode)
				}
				return
			}
			if a.Error != nil || string(a.Result) != tt.wantResult {
				t.Fatalf("answer %s %+v, want %s", a.Result, a.Error, tt.wantResult)
			}
		})
	}
	if n := evmCalls.Load(); n != 0 {
		t.Fatalf("the EVM node was asked %d times for methods it does not serve", n)
	}
	if a := rpc(t, sn, "rollup_pendingTransactions", "[]"); string(a.Result) != "[]" {
		t.Fatalf("something was stored after the bad transaction: %s", a.Result)
	}
}

func TestGatewayBatch(t *testing.T) {
	sn := serveNetwork(t, starknetNetwork(t, "SN_DEVNET"))
	status, out := testenv.PostJSON(t, sn, `[{"jsonrpc":"2.0","id":1,"method":"rollup_pendingTransactions","params":[]},{"jsonrpc":"2.0","id":2,"method":"starknet_chainId","params":[]},{"jsonrpc":"2.0","id":3,"method":"eth_chainId","params":[]}]`)
	want := `[{"jsonrpc":"2.0","id":1,"result":[]},{"jsonrpc":"2.0","id":2,"result":"0x534e5f4445564e4554"},{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"the method eth_chainId does not exist/is not available"}}]`
	if status != 200 || string(out) != want {
		t.Fatalf("HTTP %d %s\nwant %s", status, out, want)
	}
}

// TestPendingStage: the pending-transactions methods are answered by the
// Starknet family's stage, chosen by the call's method: the node is asked
// for its pending pool (the devnet speaks 0.10: its pre_confirmed block), never
// for rollup_pendingTransactions; a call whose params merely name a pending
// method goes to the node as it was sent, and its answer is the node's.
func TestPendingStage(t *testing.T) {
	n, sent := countedStarknetNetwork(t, "SN_DEVNET")
	url := serveNetwork(t, n)
	tests := []struct {
		name, method, params string
		wantResult           string // or
		wantCode             int
		wantSent             string // the method the node was asked
	}{
		{name: "rollup method", method: "rollup_pendingTransactions", params: `[]`, wantResult: `[]`, wantSent: "starknet_getBlockWithTxs"},
		{name: "starknet method", method: "starknet_pendingTransactions", params: `[]`, wantResult: `[]`, wantSent: "starknet_getBlockWithTxs"},
		{name: "params name a pending method", method: "starknet_getTransactionByHash", params: `["rollup_pendingTransactions"]`, wantCode: -32602, wantSent: "starknet_getTransactionByHash"},
		{name: "by-name params name a pending method", method: "starknet_getTransactionByHash", params: `{"transaction_hash":"starknet_pendingTransactions"}`, wantCode: -32602, wantSent: "starknet_getTransactionByHash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(sent())
			a := rpc(t, url, tt.method, tt.params)
			switch {
			case tt.wantCode != 0 && (a.Error == nil || a.Error.Code != tt.wantCode):
				t.Fatalf("answer %s %+v, want code %d", a.Result, a.Error, tt.wantCode)
			case tt.wantCode == 0 && (a.Error != nil || string(a.Result) != tt.wantResult):
				t.Fatalf("answer %s %+v, want %s", a.Result, a.Error, tt.wantResult)
			}
			var methods []string
			for _, body := range sent()[before:] {
				var req struct {
					Method string `json:"method"`
				}
				if err := json.Unmarshal([]byte(body), &req); err != nil {
					t.Fatalf("the node was sent %s: %v", body, err)
				}
				if req.Method != "starknet_blockNumber" && req.Method != "starknet_chainId" { // the pool's own reads
					methods = append(methods, req.Method)
				}
			}
			if len(methods) != 1 || methods[0] != tt.wantSent {
				t.Fatalf("the node was asked %v, want [%s]", methods, tt.wantSent)
			}
		})
	}
}

// TestGatewayUpstreamBatch: the reads of a client batch reach the devnet
// as one upstream batch (it accepts batches), the pending method is
// answered by the stage beside them, and each call gets its own answer.
func TestGatewayUpstreamBatch(t *testing.T) {
	n, sent := countedStarknetNetwork(t, "SN_DEVNET")
	sn := serveNetwork(t, n)
	before := len(sent())
	status, out := testenv.PostJSON(t, sn, `[{"jsonrpc":"2.0","id":1,"method":"starknet_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"rollup_pendingTransactions","params":[]},{"jsonrpc":"2.0","id":3,"method":"starknet_specVersion","params":[]}]`)
	want := `[{"jsonrpc":"2.0","id":1,"result":"0x534e5f4445564e4554"},{"jsonrpc":"2.0","id":2,"result":[]},{"jsonrpc":"2.0","id":3,"result":"0.10.0"}]`
	if status != 200 || string(out) != want {
		t.Fatalf("HTTP %d %s\nwant %s", status, out, want)
	}
	var batches []string
	for _, body := range sent()[before:] {
		if strings.HasPrefix(body, "[") {
			batches = append(batches, body)
		}
	}
	if len(batches) != 1 || !strings.Contains(batches[0], "starknet_chainId") || !strings.Contains(batches[0], "starknet_specVersion") {
		t.Fatalf("upstream batches %q, want one with both reads", batches)
	}
}
