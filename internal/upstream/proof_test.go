package upstream

import (
	"encoding/json"
	"testing"

	"github.com/nodegate/nodegate/jsonrpc"
)

// TestProvenHeadOf: only a mined block proves a head; the pending block
// and what a call naming "pending" answers prove nothing.
func TestProvenHeadOf(t *testing.T) {
	const (
		mined   = `{"hash":"0x01","number":"0x5"}`
		pending = `{"hash":null,"number":"0x5"}`
		tx      = `{"blockHash":"0x01","blockNumber":"0x6"}`
	)
	tests := []struct {
		name, method, params, result string
		proves                       uint64 // 0: nothing
	}{
		{"head number", "eth_blockNumber", `[]`, `"0x10"`, 16},
		{"mined block by number", "eth_getBlockByNumber", `["0x5",false]`, mined, 5},
		{"mined block at latest", "eth_getBlockByNumber", `["latest",false]`, mined, 5},
		{"pending block", "eth_getBlockByNumber", `["pending",false]`, pending, 0},
		{"pending block with a hash", "eth_getBlockByNumber", `["pending",true]`, mined, 0},
		{"pending header", "eth_getHeaderByNumber", `["pending"]`, mined, 0},
		{"block without its hash", "eth_getBlockByHash", `["0x01",false]`, pending, 0},
		{"block with no hash field", "eth_getBlockByNumber", `["latest",false]`, `{"number":"0x5"}`, 0},
		{"mined transaction", "eth_getTransactionByHash", `["0x02"]`, tx, 6},
		{"pending transaction", "eth_getTransactionByHash", `["0x02"]`, `{"blockHash":null,"blockNumber":null}`, 0},
		{"transaction of the pending block", "eth_getTransactionByBlockNumberAndIndex", `["pending","0x0"]`, tx, 0},
		{"transaction of a pending block object", "eth_getTransactionByBlockNumberAndIndex", `[{"blockNumber":"pending"},"0x0"]`, tx, 0},
		{"transaction by index, mined", "eth_getTransactionByBlockNumberAndIndex", `["0x6","0x0"]`, tx, 6},
		{"receipt without its block's hash", "eth_getTransactionReceipt", `["0x02"]`, `{"blockNumber":"0x6"}`, 0},
		{"mined receipt", "eth_getTransactionReceipt", `["0x02"]`, tx, 6},
		{"a node's error", "eth_getBlockByNumber", `["0x5",false]`, ``, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := &jsonrpc.Response{Result: json.RawMessage(tc.result)}
			if tc.result == "" {
				resp.Err = jsonrpc.NewError(-32000, "header not found")
			}
			n, ok := provenHeadOf(kindOf(ruleOf(tc.method)), json.RawMessage(tc.params), resp)
			if ok != (tc.proves != 0) || n != tc.proves {
				t.Fatalf("proves %d %v, want %d", n, ok, tc.proves)
			}
		})
	}
}

// TestNamesPending: every way a call names the pending block.
func TestNamesPending(t *testing.T) {
	tests := []struct {
		name, method, params string
		want                 bool
	}{
		{"tag", "eth_getBlockByNumber", `["pending",false]`, true},
		{"latest", "eth_getBlockByNumber", `["latest",false]`, false},
		{"second param", "eth_getBalance", `["0xaa","pending"]`, true},
		{"eip-1898", "eth_call", `[{},{"blockNumber":"pending"}]`, true},
		{"eip-1898 number", "eth_call", `[{},{"blockNumber":"0x1"}]`, false},
		{"logs from", "eth_getLogs", `[{"fromBlock":"pending"}]`, true},
		{"logs to", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"pending"}]`, true},
		{"logs numbers", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2"}]`, false},
		{"by hash", "eth_getBlockByHash", `["pending",false]`, false},
		{"no params", "eth_getBlockByNumber", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := namesPending(kindOf(ruleOf(tc.method)), json.RawMessage(tc.params)); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzProvenHeadOf(f *testing.F) {
	for _, s := range []string{`["pending",false]`, `[{},{"blockNumber":"pending"}]`, `[{"toBlock":"pending"}]`, `{"hash":null,"number":"0x2"}`, `{"blockHash":"0x1","blockNumber":"0x2"}`, `[`, `{"hash":`} {
		f.Add("eth_getBlockByNumber", s, s)
		f.Add("eth_getTransactionByBlockNumberAndIndex", s, s)
		f.Add("eth_getLogs", s, s)
	}
	f.Fuzz(func(t *testing.T, method, params, result string) {
		k := kindOf(ruleOf(method))
		n, ok := provenHeadOf(k, json.RawMessage(params), &jsonrpc.Response{Result: json.RawMessage(result)})
		if !ok && n != 0 {
			t.Fatalf("a number without a proof: %d", n)
		}
		if ok && namesPending(k, json.RawMessage(params)) {
			t.Fatalf("a call naming pending proved %d", n)
		}
	})
}

func FuzzCheckRawTx(f *testing.F) {
	for _, s := range []string{`["0x02"]`, `["0xf86c"]`, `["zz"]`, `[]`, `["0x` + "ff" + `"]`, `[1]`} {
		f.Add(s)
	}
	p := NewPool("fuzz", PoolConfig{})
	f.Fuzz(func(t *testing.T, params string) {
		if e := p.checkRawTx(json.RawMessage(params)); e != nil && e.Code != jsonrpc.CodeInvalidParams && e.Code != jsonrpc.CodeServerError {
			t.Fatalf("code %d", e.Code)
		}
	})
}
