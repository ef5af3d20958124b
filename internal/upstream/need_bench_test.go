package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/jsonrpc"
)

// BenchmarkCallKnowledge is what the pool adds to each call for one view
// of the chain (docs/pools.md): the method's kind, the block its params
// name, the head its answer proves and whether the answer is a lag answer —
// for an eth_getTransactionByHash with a ~1 KB answer and an eth_call at a
// block number.
func BenchmarkCallKnowledge(b *testing.B) {
	tx := json.RawMessage(`{"blockHash":"0x` + strings.Repeat("ab", 32) + `","blockNumber":"0x1b4","from":"0x` + strings.Repeat("01", 20) +
		`","gas":"0x5208","input":"0x` + strings.Repeat("00", 400) + `","hash":"0x` + strings.Repeat("cd", 32) + `"}`)
	calls := []struct {
		name, method string
		params       json.RawMessage
		result       json.RawMessage
	}{
		{"getTransactionByHash", "eth_getTransactionByHash", json.RawMessage(`["0x` + strings.Repeat("cd", 32) + `"]`), tx},
		{"call", "eth_call", json.RawMessage(`[{"to":"0x` + strings.Repeat("01", 20) + `","data":"0x` + strings.Repeat("00", 68) + `"},"0x1b4"]`), json.RawMessage(`"0x` + strings.Repeat("00", 32) + `"`)},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			resp := &jsonrpc.Response{Result: c.result}
			rule := ruleOf(c.method) // the pipeline's method stage found it; the call carries it
			b.ReportAllocs()
			for b.Loop() {
				k := kindOf(rule)
				ref := k.blockOf(c.params)
				if _, ok := k.provenHead(resp); ok && ref.number > 1<<62 {
					b.Fatal("unreachable")
				}
				if !(ref.named && ref.number <= 1000) && k.lagAnswer(resp) {
					b.Fatal("not a lag answer")
				}
			}
		})
	}
}
