package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestExecutionTimeoutEveryMethod: every method that runs code, and every
// method the table does not list, runs within the plan's call_timeout, on
// both families; reads do not.
func TestExecutionTimeoutEveryMethod(t *testing.T) {
	var hits atomic.Int64
	loops := func(ctx context.Context, body []byte) ([]byte, error) {
		<-ctx.Done() // a call that runs until it is stopped
		return nil, ctx.Err()
	}
	evm := network(loops, &hits)
	sn := network(loops, &hits)
	sn.Methods = methods.NewTable(methods.FamilyStarknet)
	pending, err := starknet.NewPending(sn.Upstream, starknet.PendingForward)
	if err != nil {
		t.Fatal(err)
	}
	sn.Stages = pipeline.Starknet{Pending: pending}.Stages()
	key := planKey(t, 50*time.Millisecond)
	p := pipeline.Build(pipeline.Options{})
	call := `{"to":"0x00000000000000000000000000000000000000aa","data":"0x5b600056"}`
	for _, tc := range []struct {
		name, method, params string
		n                    *pipeline.Network
	}{
		{"createAccessList", "eth_createAccessList", `[` + call + `,"latest"]`, evm},
		{"simulateV1", "eth_simulateV1", `[{"blockStateCalls":[{"calls":[` + call + `]}]},"latest"]`, evm},
		{"fillTransaction", "eth_fillTransaction", `[` + call + `]`, evm},
		{"unlisted", "eth_callMany", `[[{"transactions":[` + call + `]}]]`, evm},
		{"starknet_call", "starknet_call", `{"request":{},"block_id":"latest"}`, sn},
		{"starknet_simulateTransactions", "starknet_simulateTransactions", `[]`, sn},
		{"starknet unlisted", "starknet_madeUp", `[]`, sn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mkCall(tc.n, "1", tc.method, tc.params)
			c.Key = key
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			a := p.Serve(ctx, c)
			if a.Err == nil || a.Err.Code != -32000 || a.Err.Message != "execution aborted (timeout = 50ms)" {
				t.Fatalf("answer %s %v", a.Result, a.Err)
			}
		})
	}
	t.Run("reads are not bounded", func(t *testing.T) {
		for _, m := range []string{"eth_getBlockByNumber", "eth_getProof", "eth_feeHistory"} {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			c := mkCall(evm, "1", m, `["latest",false]`)
			c.Key = key
			if a := p.Serve(ctx, c); a.Err != nil && a.Err.Message == "execution aborted (timeout = 50ms)" {
				t.Errorf("%s was bounded by call_timeout", m)
			}
			cancel()
		}
	})
}

// TestExecutionTurnOutlivesAnswer: a node that runs a call on past its
// deadline has its caller answered at the deadline, while the key's turn
// stays taken until the node is done: the key's next call does not run
// beside it, and, its own deadline passed while it waited, never runs.
func TestExecutionTurnOutlivesAnswer(t *testing.T) {
	var hits, running, peak atomic.Int64
	const nodeRun = 600 * time.Millisecond
	n := network(func(ctx context.Context, body []byte) ([]byte, error) {
		cur := running.Add(1)
		defer running.Add(-1)
		for old := peak.Load(); cur > old && !peak.CompareAndSwap(old, cur); old = peak.Load() {
		}
		time.Sleep(nodeRun) // deaf to ctx, as the EVM of one access-list run is
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{"accessList":[],"gasUsed":"0x5208"}}`), nil
	}, &hits)
	n.Stages = pipeline.EVM{Execution: admission.New(1)}.Stages()
	key := planKey(t, 50*time.Millisecond)
	p := pipeline.Build(pipeline.Options{})
	params := `[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]`
	for i, want := range []string{
		"execution aborted (timeout = 50ms)",
		"the node's execution slots were busy for this call's whole call_timeout (50ms): it did not run; try again",
	} {
		c := mkCall(n, "1", "eth_createAccessList", params)
		c.Key = key
		start := time.Now()
		a := p.Serve(context.Background(), c)
		took := time.Since(start)
		if a.Err == nil || a.Err.Message != want {
			t.Fatalf("call %d: answer %s %v, want %q", i, a.Result, a.Err, want)
		}
		// Each call is answered at its deadline, not when the node is done.
		if took >= nodeRun {
			t.Fatalf("call %d answered after %v: the caller waited for the node", i, took)
		}
	}
	testenv.WaitFor(t, 10*time.Second, "the node runs to end", func() bool { return running.Load() == 0 })
	if peak.Load() != 1 || hits.Load() != 1 {
		t.Fatalf("peak %d node runs at once (want 1), %d runs (want 1)", peak.Load(), hits.Load())
	}
}
