package starknet

import (
	"os"
	"testing"
)

// BenchmarkMapPending maps the five transactions of the recorded pending block.
func BenchmarkMapPending(b *testing.B) {
	raw, err := os.ReadFile("testdata/getblockwithtxs_pending_0.7.json")
	if err != nil {
		b.Fatal(err)
	}
	txs := extractTxs(b, raw)
	b.ReportAllocs()
	b.SetBytes(int64(len(txs)))
	for b.Loop() {
		if _, e, _ := mapPendingList(txs); e != nil {
			b.Fatal(e)
		}
	}
}
