package verify

import (
	"encoding/json"
	"testing"
)

// FuzzAnswer: no answer or params, however malformed, panics a check;
// each method kind is tried.
func FuzzAnswer(f *testing.F) {
	f.Add(`["0x1",true]`, `{"hash":"0x00","number":"0x1","transactions":[{}]}`)
	f.Add(`[{"blockHash":"0x0000000000000000000000000000000000000000000000000000000000000001"}]`, `[{"blockHash":null,"blockNumber":"0x1"}]`)
	f.Add(`["0x0000000000000000000000000000000000000000000000000000000000000001"]`, `{"type":"0x2","hash":"0x1","from":"0x2","logs":[{}]}`)
	f.Add(`[{"blockNumber":"0x10"}]`, `[{"blockHash":"0x1","transactionIndex":"0x0","logs":[null]}]`)
	methods := []string{"eth_getBlockByNumber", "eth_getBlockByHash", "eth_getTransactionByHash",
		"eth_getTransactionByBlockNumberAndIndex", "eth_getTransactionReceipt", "eth_getBlockReceipts", "eth_getLogs"}
	all := Defaults()
	all.TxSender, all.BlockSenders = true, true
	f.Fuzz(func(t *testing.T, params, result string) {
		for _, m := range methods {
			_ = Answer(all, rule(t, m), json.RawMessage(params), json.RawMessage(result))
		}
	})
}

// FuzzRefOf: a param naming a block is read without panicking, and a
// hash it reads is one written in the param.
func FuzzRefOf(f *testing.F) {
	for _, s := range []string{`"0x10"`, `"earliest"`, `"pending"`, `{"blockHash":"0x01"}`, `"0x` + "ab" + `"`, `{`, `[]`, `"pend\u0069ng"`, "\"0x\xff\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := refOf([]byte(v))
		if r.byHash && r.byNum {
			t.Fatalf("%q read as both a hash and a number", v)
		}
		if len(v) > 0 && v[0] != '{' && r != decodedRef([]byte(v)) {
			t.Fatalf("%q read as %+v, decoded as %+v", v, r, decodedRef([]byte(v)))
		}
	})
}

// FuzzAgainstRoot: no answer, header or receipts, however malformed,
// panics the receipts-root check, for each kind it reads.
func FuzzAgainstRoot(f *testing.F) {
	f.Add(`{"transactionHash":"0x01","transactionIndex":"0x5","status":"0x1","logs":[]}`, `{"number":"0x1"}`, `[{"logs":[{}]}]`)
	f.Add(`[{"blockHash":"0x0000000000000000000000000000000000000000000000000000000000000001","logIndex":"0x0"}]`, `{}`, `[]`)
	f.Add(`null`, `[`, `{`)
	methods := []string{"eth_getTransactionReceipt", "eth_getBlockReceipts", "eth_getLogs"}
	f.Fuzz(func(t *testing.T, result, header, receipts string) {
		for _, m := range methods {
			r := rule(t, m)
			for _, h := range RootBlocks(r, json.RawMessage(result)) {
				_ = AgainstRoot(r, json.RawMessage(result), h, json.RawMessage(header), json.RawMessage(receipts))
			}
			_ = AgainstRoot(r, json.RawMessage(result), [32]byte{}, json.RawMessage(header), json.RawMessage(receipts))
		}
	})
}
