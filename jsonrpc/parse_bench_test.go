package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParse measures the request parser on a single call and on a
// batch of 100 (per call).
func BenchmarkParse(b *testing.B) {
	one := `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b"]}`
	parts := make([]string, 100)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_call","params":[{"to":"0x000000000000000000000000000000000000dead","data":"0x70a08231"},"latest"]}`, i)
	}
	batch := "[" + strings.Join(parts, ",") + "]"
	for _, tc := range []struct {
		name  string
		body  []byte
		calls int
	}{{"single", []byte(one), 1}, {"batch100", []byte(batch), 100}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				msgs, _, err := Parse(tc.body, 1000)
				if err != nil || len(msgs) != tc.calls {
					b.Fatalf("parse: %v, %d messages", err, len(msgs))
				}
			}
		})
	}
}

// BenchmarkDecodeResponse measures reading an upstream answer (a ~1 KB
// transaction object) without decoding its result.
func BenchmarkDecodeResponse(b *testing.B) {
	result := `{"blockHash":"0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2","input":"0x` + strings.Repeat("ab", 400) + `","nonce":"0x15"}`
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, r, err := DecodeResponse(body); err != nil || len(r.Result) != len(result) {
			b.Fatal("decode")
		}
	}
}

// txResult is a transaction answer as a node gives it (the load tool's
// static upstream's: 20 members, a 1 KB input).
func txResult(i int) string {
	return fmt.Sprintf(`{"accessList":[],"blockHash":"0x846a2fe85b01b3474e5189d648f2ddf77099434aa34e2713e0068eea6ae0c957",`+
		`"blockNumber":"0x5daf3b","chainId":"0x539","from":"0x65e1858bc2f953c91d363ecba07e5a882ca56a6e","gas":"0xc350",`+
		`"gasPrice":"0x9502f9000","hash":"0x487677ab0bf704eec7c0075637b3d0d90ef1379b9660e7824ea84789d77a%04x","input":"0xa9059cbb%s",`+
		`"maxFeePerGas":"0x9502f9000","maxPriorityFeePerGas":"0x3b9aca00","nonce":"0x%x",`+
		`"r":"0x5d0e5bd0ef4a0e6ebd21ab2d4ec5cd6afd68c0a1f8be87f6b3fca8d6be2bc9a4","s":"0x1d0fe1fd1b0bb3b2c24d4c15a3b6a8a2b2aa3d0d0f4f0e0a7f0b1d2e3c4b5a69",`+
		`"to":"0xf02c1c8e6114b1dbe8937a39260b5b0a374432bb","transactionIndex":"0x%x","type":"0x2","v":"0x1","value":"0x0","yParity":"0x1"}`,
		i, strings.Repeat("0", 1848), i, i)
}

// BenchmarkResponsesBatch10 reads an upstream's answer to a batch of ten
// transaction lookups as the pool does: the batch's envelopes, then each
// result's members (as the answer's verification reads them).
func BenchmarkResponsesBatch10(b *testing.B) {
	parts := make([]string, 10)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, i, txResult(i))
	}
	body := []byte("[" + strings.Join(parts, ",") + "]")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		n := 0
		err := Responses(body, func(_ json.RawMessage, r Response, err error) bool {
			if err != nil || Fields(r.Result, func(_, _ []byte) bool { n++; return true }) != nil {
				b.Fatal("read")
			}
			return true
		})
		if err != nil || n != 200 {
			b.Fatalf("read %d members: %v", n, err)
		}
	}
}
