package upstream

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

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
// adds to a call (canonjudge.go): reading the block an
// eth_getTransactionByHash answer (~1 KB) names and comparing it with the
// canonical chain's block at that height.
func BenchmarkCanonicalCheck(b *testing.B) { benchmarkCanonicalCheck(b, false) }

// BenchmarkCanonicalCheckWithAClaim is the same with another replica's
// claim pending at the answer's height (canonclaim.go): the same block,
// so the answer is on the chain, after the claim's look.
func BenchmarkCanonicalCheckWithAClaim(b *testing.B) { benchmarkCanonicalCheck(b, true) }

func benchmarkCanonicalCheck(b *testing.B, claim bool) {
	hash := "0x" + strings.Repeat("ab", 32)
	tx := json.RawMessage(`{"blockHash":"` + hash + `","blockNumber":"0x1b4","from":"0x` + strings.Repeat("01", 20) +
		`","gas":"0x5208","input":"0x` + strings.Repeat("00", 400) + `","hash":"0x` + strings.Repeat("cd", 32) + `"}`)
	p := NewPool("bench", PoolConfig{HeadBlockMethod: "eth_getBlockByNumber"}, MemberConfig{Upstream: Func{ID: "m"}})
	in := func(int) bool { return true }
	for n := uint64(0x1b0); n <= 0x1b8; n++ {
		blk := headBlock{Number: n, Parent: common.Hash{31: byte(n - 1)}, Hash: common.Hash{31: byte(n)}}
		if n == 0x1b4 {
			blk.Hash = common.HexToHash(hash)
		}
		if n == 0x1b5 {
			blk.Parent = common.HexToHash(hash)
		}
		p.canon.observe(0, blk, nil, in)
	}
	if claim {
		p.canon.setClaim(peerClaim{block: headBlock{Number: 0x1b4, Hash: common.HexToHash(hash)}, until: nowNano() + int64(time.Hour), came: nowNano()})
	}
	k := kindOf(ruleOf("eth_getTransactionByHash"))
	params := json.RawMessage(`["0x` + strings.Repeat("cd", 32) + `"]`)
	resp := &jsonrpc.Response{Result: tx}
	b.ReportAllocs()
	for b.Loop() {
		if _, place := p.placeAnswer(k, params, resp); place != placeOn {
			b.Fatal("the canonical block not judged on the chain")
		}
	}
}

// BenchmarkCanonicalCheckLogs is what judging an eth_getLogs answer by
// the block of each log adds to a call (canonjudge.go): 100 logs in 4
// blocks of the chain, each block looked up once.
func BenchmarkCanonicalCheckLogs(b *testing.B) {
	p := NewPool("bench", PoolConfig{HeadBlockMethod: "eth_getBlockByNumber"}, MemberConfig{Upstream: Func{ID: "m"}})
	in := func(int) bool { return true }
	for n := uint64(1); n <= 10; n++ {
		p.canon.observe(0, headBlock{Number: n, Parent: common.Hash{31: byte(n - 1)}, Hash: common.Hash{31: byte(n)}}, nil, in)
	}
	var logs []string
	for i := range 100 {
		n := 7 + i/25
		logs = append(logs, `{"address":"0x`+strings.Repeat("01", 20)+`","blockHash":"`+(common.Hash{31: byte(n)}).Hex()+
			`","blockNumber":"0x`+strconv.FormatUint(uint64(n), 16)+`","data":"0x`+strings.Repeat("00", 64)+`","logIndex":"0x0","removed":false}`)
	}
	resp := &jsonrpc.Response{Result: json.RawMessage("[" + strings.Join(logs, ",") + "]")}
	k := kindOf(ruleOf("eth_getLogs"))
	params := json.RawMessage(`[{"fromBlock":"0x7","toBlock":"0xa"}]`)
	b.ReportAllocs()
	for b.Loop() {
		if _, place := p.placeAnswer(k, params, resp); place != placeOn {
			b.Fatal("logs of the chain not judged on it")
		}
	}
}
