package pipeline_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
)

// planKey is a config key on a plan with the given call_timeout.
func planKey(t *testing.T, timeout time.Duration) *keys.Key {
	t.Helper()
	const plain = "0123456789abcdef0123456789abcdef"
	plans := map[string]keys.Plan{"p": {Name: "p", CallTimeout: timeout}}
	c, err := keys.NewCache(context.Background(), nil, plans, "p", []string{plain}, keys.CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	k, _ := c.Lookup(plain)
	return k
}

// TestExecutionTimeout: eth_call and eth_estimateGas run within the key's
// plan's call_timeout, the node sees the deadline, and the answer is
// go-ethereum's; other methods are not bounded by it.
func TestExecutionTimeout(t *testing.T) {
	var hits atomic.Int64
	n := network(func(ctx context.Context, body []byte) ([]byte, error) {
		<-ctx.Done() // a call that loops until it is stopped
		return nil, ctx.Err()
	}, &hits)
	key := planKey(t, 50*time.Millisecond)
	p := pipeline.Build(pipeline.Options{})
	for _, tc := range []struct{ method, params string }{
		{"eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]`},
		{"eth_estimateGas", `[{"to":"0x00000000000000000000000000000000000000aa"}]`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			c := mkCall(n, "1", tc.method, tc.params)
			c.Key = key
			a := p.Serve(context.Background(), c)
			if a.Err == nil || a.Err.Code != -32000 || a.Err.Message != "execution aborted (timeout = 50ms)" {
				t.Fatalf("answer %s %v", a.Result, a.Err)
			}
		})
	}
	t.Run("other methods", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		c := mkCall(n, "1", "eth_getBalance", `["0x00000000000000000000000000000000000000aa","latest"]`)
		c.Key = key
		if a := p.Serve(ctx, c); a.Err != nil && a.Err.Message == "execution aborted (timeout = 50ms)" {
			t.Fatalf("eth_getBalance was bounded by call_timeout")
		}
	})
}

// TestExecutionShare: on a network whose calls run on this process, one
// key's executions run its share (EVM.Execution's) at a time, with as many
// waiting; those past that are refused at once (-32005), not queued.
func TestExecutionShare(t *testing.T) {
	var hits, running, peak atomic.Int64
	n := network(func(ctx context.Context, body []byte) ([]byte, error) {
		cur := running.Add(1)
		defer running.Add(-1)
		for old := peak.Load(); cur > old && !peak.CompareAndSwap(old, cur); old = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x"}`), nil
	}, &hits)
	n.Stages = pipeline.EVM{Execution: admission.New(1)}.Stages()
	key := planKey(t, time.Minute)
	p := pipeline.Build(pipeline.Options{})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			c := mkCall(n, "1", "eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]`)
			c.Key = key
			if a := p.Serve(context.Background(), c); a.Err != nil && (a.Err.Code != -32005 ||
				a.Err.Message != "too many calls that run code for this account: 1 run and 1 wait for the node's execution slots; wait for answers before sending more") {
				t.Errorf("answer %v", a.Err)
			}
		})
	}
	wg.Wait()
	if peak.Load() != 1 {
		t.Fatalf("%d executions of one key ran at once, want 1", peak.Load())
	}
}
