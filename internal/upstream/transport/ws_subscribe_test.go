package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestWSSubscribe: eth_subscribe over the member's one connection, beside
// its calls: notifications reach their subscription in order, a bad filter
// is the node's answer, Unsubscribe stops them, and a dropped connection
// ends the subscription with an error.
func TestWSSubscribe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := evmnodetest.StartHTTP(t)
	w, err := NewWS("ws"+strings.TrimPrefix(n.HTTPEndpoint(), "http"), WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	if _, err := w.Subscribe(ctx, json.RawMessage(`["nope"]`)); !errors.As(err, new(*jsonrpc.Error)) {
		t.Fatalf("unknown kind: %v, want the node's answer", err)
	}
	a, err := w.Subscribe(ctx, json.RawMessage(`["newHeads"]`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Subscribe(ctx, json.RawMessage(`["newHeads"]`))
	if err != nil {
		t.Fatal(err)
	}
	base := n.Ethereum().BlockChain().CurrentBlock().Number.Uint64()
	for range 3 {
		_ = n.Commit()
		if _, err := w.Do(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)); err != nil {
			t.Fatal(err) // calls share the connection
		}
	}
	for _, s := range []*upstream.Subscription{a, b} {
		for i := range 3 {
			select {
			case raw := <-s.C:
				var h struct{ Number hexutil.Uint64 }
				if err := json.Unmarshal(raw, &h); err != nil || uint64(h.Number) != base+uint64(i+1) {
					t.Fatalf("head %d: %s %v", i, raw, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("head %d not received", i)
			}
		}
	}
	a.Unsubscribe()
	if !errors.Is(a.Err(), upstream.ErrSubscriptionEnded) {
		t.Fatalf("after Unsubscribe: %v", a.Err())
	}
	w.Close() // the connection drops
	select {
	case <-b.Done():
		if b.Err() == nil || errors.Is(b.Err(), upstream.ErrSubscriptionEnded) {
			t.Fatalf("dropped connection ended the subscription with %v", b.Err())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a dropped connection did not end the subscription")
	}
}
