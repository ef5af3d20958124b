package family

import (
	"context"
	"testing"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
)

// BenchmarkVerifyOverhead is one distinct eth_getTransactionByHash through
// the ingress, the pipeline and a pool over the static upstream's answers
// (no I/O), with the answer checks off, at their defaults and all on: the
// allocations per call (and, on a quiet machine, the µs) are what the
// checks cost a call.
func BenchmarkVerifyOverhead(b *testing.B) {
	on, off := true, false
	for _, mode := range []struct {
		name string
		v    config.Verify
	}{
		{"off", config.Verify{Identity: &off, BlockHash: &off, TransactionsRoot: &off, TxHash: &off}},
		{"identity", config.Verify{BlockHash: &off, TransactionsRoot: &off, TxHash: &off}},
		{"defaults", config.Verify{}},
		{"all", config.Verify{TxSender: &on, BlockSenders: &on}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			up := upstream.Func{ID: "static", Fn: func(_ context.Context, body []byte) ([]byte, error) { return bench.AnswerStatic(nil, body), nil }}
			pool := upstream.NewPool("bench", upstream.PoolConfig{Verify: evmVerify(config.Network{Verify: mode.v})}, upstream.MemberConfig{Upstream: up})
			n := &pipeline.Network{Name: "bench", Methods: methods.NewTable(methods.FamilyEVM), Upstream: pool, Pool: pool}
			gatewaytest.ServeDirect(b, gatewaytest.Server(b, n).Handler(), gatewaytest.HashBodies(bench.StaticTxCount, 1), 1)
		})
	}
}
