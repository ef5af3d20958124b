package methods_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// specMethodNames are the nine validated methods, indexed by the fuzzer's
// first argument.
var specMethodNames = []string{
	"eth_getStorageAt", "eth_getLogs", "eth_getUncleByBlockNumberAndIndex",
	"eth_getTransactionByBlockHashAndIndex", "eth_getTransactionByBlockNumberAndIndex",
	"eth_getTransactionByHash", "eth_getTransactionReceipt", "eth_estimateGas", "eth_call",
}

// FuzzParams: for each spec method, Check never panics, refuses only with
// -32602, accepts only JSON arrays, accepts whatever go-ethereum's own rpc
// server accepts, refuses what it refuses while decoding, and blames the
// same argument in the same words (the embedded node is the oracle).
func FuzzParams(f *testing.F) {
	for method, cases := range oracleCases() {
		for i, name := range specMethodNames {
			if name == method {
				for _, p := range cases {
					f.Add(uint8(i), []byte(p))
				}
			}
		}
	}
	for i := range specMethodNames {
		f.Add(uint8(i), []byte(`[`+strings.Repeat(`"0x1",`, 5000)+`1]`))
		f.Add(uint8(i), []byte(strings.Repeat("[", 10000)))
		f.Add(uint8(i), []byte(`["0x1`+strings.Repeat("0", 100000)+`"]`))
		f.Add(uint8(i), []byte(`[1e99999999, -0, 123456789012345678901234567890]`))
		f.Add(uint8(i), []byte(`{"a":1}`))
	}
	table := methods.NewTable(methods.FamilyEVM)
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		method := specMethodNames[int(which)%len(specMethodNames)]
		rule, lerr := table.Lookup(method)
		if lerr != nil {
			t.Fatalf("lookup %s: %v", method, lerr)
		}
		parsed, err := rule.Check(params)
		if err != nil {
			if err.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("%s %q: code %d", method, params, err.Code)
			}
		} else {
			var elems []json.RawMessage
			if jerr := json.Unmarshal(params, &elems); jerr != nil {
				t.Fatalf("%s accepted non-array params %q", method, params)
			}
			if len(parsed) != len(rule.Args) {
				t.Fatalf("%s: %d parsed values for %d args", method, len(parsed), len(rule.Args))
			}
		}
		// Only what a client could send reaches Check: a JSON array.
		if !json.Valid(params) || !jsonrpc.IsBatch(params) {
			return
		}
		if err == nil {
			// What the gateway forwards, go-ethereum decodes too (a
			// deferred check is the node's to order, see the oracle).
			if parsed.Deferred() != nil {
				return
			}
			if theirs := gethVerdict(t, oracleNode(t), method, params); theirs != nil && !nodeOnly(theirs.Message) {
				t.Fatalf("%s %q: the gateway forwards what go-ethereum refuses: %q", method, params, theirs.Message)
			}
			return
		}
		if specException(method, params) {
			return
		}
		if theirs := gethVerdict(t, oracleNode(t), method, params); theirs == nil {
			t.Fatalf("%s %q: go-ethereum accepts, the gateway refuses with %q", method, params, err.Message)
		} else if theirs.Message != err.Message {
			t.Fatalf("%s %q: the gateway blames %q, go-ethereum %q", method, params, err.Message, theirs.Message)
		}
	})
}
