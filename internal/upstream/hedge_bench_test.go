package upstream_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// BenchmarkHedgeWatch is one read through a pool of two members that
// answer at once, hedging on (each call watched, none hedged) and off:
// the watch of a call that is not hedged allocates nothing.
func BenchmarkHedgeWatch(b *testing.B) {
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
	fn := func(context.Context, []byte) ([]byte, error) { return answer, nil }
	params := json.RawMessage(`["0x0000000000000000000000000000000000000001","latest"]`)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000001","latest"]}`)
	r, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_getBalance")
	for _, tc := range []struct {
		name string
		off  bool
	}{{"hedge=on", false}, {"hedge=off", true}} {
		b.Run(tc.name, func(b *testing.B) {
			p := upstream.NewPool("bench", upstream.PoolConfig{Hedge: upstream.HedgeConfig{Off: tc.off}},
				upstream.MemberConfig{Upstream: upstream.Func{ID: "a", Fn: fn}}, upstream.MemberConfig{Upstream: upstream.Func{ID: "b", Fn: fn}})
			c := upstream.Call{Body: body, Rule: r, Params: params, Idempotent: true}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := p.Send(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
			if sent, _ := p.Hedges(); sent != 0 {
				b.Logf("%d hedges sent", sent)
			}
		})
	}
}
