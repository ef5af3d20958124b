package jsonrpc

import (
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
