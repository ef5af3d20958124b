package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/plan"
	"github.com/nodegate/nodegate/internal/upstream"
)

// headGas is a head block's gas limit that never changes.
type headGas uint64

func (g headGas) GasLimit() uint64 { return uint64(g) }

// TestForwardedToSurvivesCopies: a call that a stage passes on as a copy
// (the gas cap lowers an eth_call's gas; eth_getLogs goes in sub-ranges)
// and that fails over to a partner tells its caller which partner
// answered, as a call passed on unchanged does.
func TestForwardedToSurvivesCopies(t *testing.T) {
	var sent atomic.Value // the last body the partner received
	partner := upstream.NewPool("partners", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: upstream.Func{ID: "partner-a",
		Fn: func(ctx context.Context, body []byte) ([]byte, error) {
			sent.Store(string(body))
			return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x"}`), nil
		}}})
	down := upstream.Func{ID: "node", Fn: func(context.Context, []byte) ([]byte, error) { return nil, errors.New("connection refused") }}
	n := &pipeline.Network{
		Name: "test", Methods: methods.NewTable(methods.FamilyEVM), Upstream: down, Partners: partner,
		Route:  &pipeline.Route{FailoverMethods: map[string]bool{"eth_call": true, "eth_getBalance": true}},
		Stages: pipeline.EVM{Limits: limits.NewSet(plan.MethodLimits{}), Gas: headGas(30_000_000)}.Stages(),
	}
	p := pipeline.Build(pipeline.Options{})
	key := &keys.Key{ID: "k", Plan: keys.Plan{Name: "team", Failover: true}}
	for _, tc := range []struct {
		name, method, params string
		copied               bool // the gas cap passes a copy on
	}{
		{name: "gas capped", method: "eth_call", params: `[{"to":"0x00000000000000000000000000000000000000a1","gas":"0xffffffffffff"},"latest"]`, copied: true},
		{name: "gas under the cap", method: "eth_call", params: `[{"to":"0x00000000000000000000000000000000000000a1","gas":"0x5208"},"latest"]`},
		{name: "not capped at all", method: "eth_getBalance", params: `["0x00000000000000000000000000000000000000a1","latest"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mkCall(n, "1", tc.method, tc.params)
			c.Key = key
			resp := p.Serve(context.Background(), c)
			if resp.Err != nil {
				t.Fatalf("answer: %+v", resp.Err)
			}
			if got := c.ForwardedTo(); got != "partner-a" {
				t.Fatalf("forwarded to %q, want partner-a", got)
			}
			if body, _ := sent.Load().(string); tc.copied && strings.Contains(body, "0xffffffffffff") {
				t.Fatalf("partner received the gas uncapped: %s", body)
			}
		})
	}
}

// TestMemberSurvivesCopies: the member that answered a call is in the
// call's record also when the stages passed the call on as copies (the gas
// cap; eth_getLogs in sub-ranges, after its tag was read by the network
// itself), in a batch as alone; a call the gateway answers names none.
func TestMemberSurvivesCopies(t *testing.T) {
	var getLogs atomic.Int64
	node := upstream.Func{ID: "node-a", Fn: func(_ context.Context, body []byte) ([]byte, error) {
		switch {
		case strings.Contains(string(body), `"eth_getLogs"`):
			getLogs.Add(1)
			return []byte(`{"jsonrpc":"2.0","id":1,"result":[]}`), nil
		case strings.Contains(string(body), `"eth_blockNumber"`):
			return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x400"}`), nil
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x"}`), nil
	}}
	n := &pipeline.Network{
		Name: "test", Methods: methods.NewTable(methods.FamilyEVM), Upstream: node,
		Stages: pipeline.EVM{Limits: limits.NewSet(plan.MethodLimits{}), Gas: headGas(30_000_000)}.Stages(),
	}
	p := pipeline.Build(pipeline.Options{})
	mk := func() []*pipeline.Call {
		return []*pipeline.Call{
			mkCall(n, "1", "eth_call", `[{"to":"0x00000000000000000000000000000000000000a1","gas":"0xffffffffffff"},"latest"]`),
			mkCall(n, "2", "eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0x3ff"}]`),
			mkCall(n, "3", "eth_getLogs", `[{"fromBlock":"0x0","toBlock":"latest"}]`),
			mkCall(n, "4", "eth_subscribe", `["newHeads"]`), // the gateway refuses it over HTTP
		}
	}
	check := func(t *testing.T, calls []*pipeline.Call) {
		for i, c := range calls {
			want := "node-a"
			if c.Req.Method == "eth_subscribe" {
				want = ""
			}
			if got := c.Member(); got != want {
				t.Errorf("call %d (%s): member %q, want %q", i, c.Req.Method, got, want)
			}
		}
	}
	t.Run("alone", func(t *testing.T) {
		calls := mk()
		for _, c := range calls {
			p.Serve(context.Background(), c)
		}
		check(t, calls)
	})
	t.Run("batch", func(t *testing.T) {
		calls := mk()
		serveAll(t, p, calls, pipeline.BatchLimits{})
		check(t, calls)
	})
	if getLogs.Load() < 4*2 {
		t.Fatalf("%d eth_getLogs upstream, want the ranges split in sub-ranges", getLogs.Load())
	}
}
