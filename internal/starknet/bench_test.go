package starknet

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// BenchmarkRollupPassThrough measures what the rollup upstream adds to a
// forwarded call: compare Direct with Rollup in one run.
func BenchmarkRollupPassThrough(b *testing.B) {
	dev, err := NewDevnet(DevnetConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	inner := upstream.Func{ID: "devnet", Fn: dev.Do}
	r, _ := NewRollup(inner, PendingForward)
	body := jsonrpc.AppendRequest(nil, 1, "starknet_blockHashAndNumber", json.RawMessage("[]"))
	ctx := context.Background()
	b.Run("Direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := inner.Do(ctx, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Rollup", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Do(ctx, body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

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
