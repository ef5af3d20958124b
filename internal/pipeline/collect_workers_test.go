package pipeline

import (
	"context"
	"runtime/metrics"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// goroutinesCreated is the count of goroutines the process has started.
func goroutinesCreated(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("metric %s not supported", s[0].Name)
	}
	return s[0].Value.Uint64()
}

// TestCollectorSendsOnKeptWorkers: an upstream batch is sent from a kept
// worker (workers.go), not from a goroutine started for it, which grew its
// stack by copying down to the transport on every client batch.
func TestCollectorSendsOnKeptWorkers(t *testing.T) {
	const batches = 50
	idempotent := &methods.Rule{Idempotent: true}
	n := batchingNetwork("kept")
	// Two long-lived callers wait at the route for each batch, so that
	// the test itself starts no goroutine per batch.
	type ask struct {
		t    *token
		c    *Call
		done chan *jsonrpc.Response
	}
	asks := make(chan ask)
	defer close(asks)
	for range 2 {
		go func() {
			for a := range asks {
				resp, _, _ := a.t.collect(a.c)
				a.done <- resp
			}
		}()
	}
	run := func() {
		col := newCollector(context.Background())
		col.forward = func(_ context.Context, _ *Network, calls []upstream.BatchCall) []upstream.BatchAnswer {
			out := make([]upstream.BatchAnswer, len(calls))
			for i := range out {
				out[i].Resp = &jsonrpc.Response{Result: []byte(`"0x1"`)}
			}
			return out
		}
		done := make(chan *jsonrpc.Response, 2)
		ta, tb := col.start(), col.start()
		col.wait()
		asks <- ask{ta, &Call{Network: n, Rule: idempotent}, done}
		asks <- ask{tb, &Call{Network: n, Rule: idempotent}, done}
		for range 2 {
			if r := <-done; r == nil {
				t.Fatal("a call went alone: the batch was not sent")
			}
		}
	}
	run() // warm: the workers exist
	before := goroutinesCreated(t)
	for range batches {
		run()
	}
	if created := goroutinesCreated(t) - before; created > batches/5 {
		t.Errorf("%d client batches started %d goroutines, want at most %d (each upstream batch sent from a new one)", batches, created, batches/5)
	}
}
