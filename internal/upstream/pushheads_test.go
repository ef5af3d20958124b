package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// TestPoolFollowsPushedHeads: a ws member's heads reach the pool by its
// newHeads subscription as they are sealed, not at the next poll (here an
// hour away).
func TestPoolFollowsPushedHeads(t *testing.T) {
	n := evmnodetest.StartHTTP(t)
	ws, err := transport.NewWS("ws"+strings.TrimPrefix(n.HTTPEndpoint(), "http"), transport.WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, upstream.MemberConfig{Upstream: ws})
	m := p.Members()[0]
	chainHead := func() uint64 { return n.Ethereum().BlockChain().CurrentBlock().Number.Uint64() }
	// The push subscription starts after Start returns: seal until the
	// pool follows, then every further head must arrive by push.
	testenv.WaitFor(t, 10*time.Second, "the push subscription to start", func() bool {
		if m.Head() > 1 && m.Head() == chainHead() {
			return true
		}
		_ = n.Commit()
		return false
	})
	base := m.Head()
	for i := range uint64(3) {
		if err := n.Commit(); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, 10*time.Second, fmt.Sprintf("the pool to learn head %d", base+i+1), func() bool { return m.Head() == base+i+1 })
	}
}

// gatedSubscriber is a ws member whose subscriptions are made only once
// gate is closed.
type gatedSubscriber struct {
	*transport.WS
	gate chan struct{}
}

func (g gatedSubscriber) Subscribe(ctx context.Context, params json.RawMessage) (*upstream.Subscription, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.WS.Subscribe(ctx, params)
}

// TestPoolAsksTheHeadOnceSubscribed: a block made after the pool's last
// poll but before its head subscription was made (at start, or after a
// drop) is learnt when the subscription is made, not at the next block or
// poll (both an hour away here: a dev chain seals on demand).
func TestPoolAsksTheHeadOnceSubscribed(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  upstream.PoolConfig
	}{
		{"numbers", upstream.PoolConfig{HeadInterval: time.Hour}},
		{"blocks by hash", upstream.PoolConfig{HeadInterval: time.Hour, HeadBlockMethod: "eth_getBlockByNumber"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := evmnodetest.StartHTTP(t)
			ws, err := transport.NewWS("ws"+strings.TrimPrefix(n.HTTPEndpoint(), "http"), transport.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ws.Close)
			gate := make(chan struct{})
			p := startPool(t, tc.cfg, upstream.MemberConfig{Upstream: gatedSubscriber{ws, gate}})
			m := p.Members()[0]
			base := m.Head() // Start polled it
			if err := n.Commit(); err != nil {
				t.Fatal(err)
			}
			close(gate)
			testenv.WaitFor(t, 30*time.Second, fmt.Sprintf("the pool to learn head %d", base+1), func() bool { return m.Head() == base+1 })
		})
	}
}
