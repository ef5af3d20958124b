package upstream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/jsonrpc"
)

// BenchmarkJudge is judge's own cost on an answer it takes (judge.go: no
// verification configured, so what is left is the floor, method and chain
// rules): an eth_getTransactionByHash answer (~1 KB) and an
// eth_getBlockByNumber answer at a number (a header with its logs bloom,
// ~1.3 KB), both on the canonical chain.
func BenchmarkJudge(b *testing.B) {
	hash := "0x" + strings.Repeat("ab", 32)
	tx := `{"blockHash":"` + hash + `","blockNumber":"0x1b4","from":"0x` + strings.Repeat("01", 20) +
		`","gas":"0x5208","input":"0x` + strings.Repeat("00", 400) + `","hash":"0x` + strings.Repeat("cd", 32) + `"}`
	block := `{"baseFeePerGas":"0x7","difficulty":"0x0","extraData":"0x","gasLimit":"0x1c9c380","gasUsed":"0x5208","hash":"` + hash +
		`","logsBloom":"0x` + strings.Repeat("00", 256) + `","miner":"0x` + strings.Repeat("01", 20) + `","mixHash":"0x` + strings.Repeat("02", 32) +
		`","nonce":"0x0000000000000000","number":"0x1b4","parentHash":"0x` + strings.Repeat("03", 32) + `","receiptsRoot":"0x` + strings.Repeat("04", 32) +
		`","sha3Uncles":"0x` + strings.Repeat("05", 32) + `","size":"0x27f","stateRoot":"0x` + strings.Repeat("06", 32) +
		`","timestamp":"0x6553f100","transactions":[],"transactionsRoot":"0x` + strings.Repeat("07", 32) + `","uncles":[]}`
	p := NewPool("bench", PoolConfig{}, MemberConfig{Upstream: Func{ID: "m"}})
	p.started.Store(true)
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
	m := p.members[0]
	for _, c := range []struct{ name, method, params, result string }{
		{"getTransactionByHash", "eth_getTransactionByHash", `["0x` + strings.Repeat("cd", 32) + `"]`, tx},
		{"getBlockByNumber", "eth_getBlockByNumber", `["0x1b4",false]`, block},
	} {
		b.Run(c.name, func(b *testing.B) {
			call := Call{Rule: ruleOf(c.method), Params: json.RawMessage(c.params), Idempotent: true}
			k := kindOf(call.Rule)
			resp := &jsonrpc.Response{Result: json.RawMessage(c.result)}
			raw := []byte(c.result)
			tried := make([]bool, 1)
			b.ReportAllocs()
			for b.Loop() {
				r := retry{tried: tried, ref: k.blockOf(call.Params)}
				var t tries
				if p.judge(context.Background(), call, k, &r, oldBlock{}, &t, m, raw, resp, 0x1b8) != answerIsTheCall {
					b.Fatal("the answer was not taken")
				}
			}
		})
	}
}
