package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
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

// BenchmarkCanonicalCheck is what judging an answer by (number, hash)
// adds to a call (answerblock.go): reading the block an
// eth_getTransactionByHash answer (~1 KB) names and comparing it with the
// canonical chain's block at that height.
func BenchmarkCanonicalCheck(b *testing.B) {
	hash := "0x" + strings.Repeat("ab", 32)
	tx := json.RawMessage(`{"blockHash":"` + hash + `","blockNumber":"0x1b4","from":"0x` + strings.Repeat("01", 20) +
		`","gas":"0x5208","input":"0x` + strings.Repeat("00", 400) + `","hash":"0x` + strings.Repeat("cd", 32) + `"}`)
	p := NewPool("bench", PoolConfig{}, MemberConfig{Upstream: Func{ID: "m"}})
	in := func(int) bool { return true }
	for n := uint64(0x1b0); n <= 0x1b8; n++ {
		blk := headBlock{Number: n, Parent: common.Hash{31: byte(n - 1)}, Hash: common.Hash{31: byte(n)}}
		if n == 0x1b4 {
			blk.Hash = common.HexToHash(hash)
		}
		if n == 0x1b5 {
			blk.Parent = common.HexToHash(hash)
		}
		p.canon.observe(0, blk, in)
	}
	k := kindOf(ruleOf("eth_getTransactionByHash"))
	params := json.RawMessage(`["0x` + strings.Repeat("cd", 32) + `"]`)
	resp := &jsonrpc.Response{Result: tx}
	b.ReportAllocs()
	for b.Loop() {
		if _, off := p.offCanonical(k, params, resp); off {
			b.Fatal("the canonical block judged off the chain")
		}
	}
}
