package subs

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
	"github.com/nodegate/nodegate/jsonrpc"
)

// embeddedHub is a hub over a pool of the embedded node n, after the
// given members (which come first in the pool).
func embeddedHub(t *testing.T, n *evmnode.Node, opts Options, first ...upstream.MemberConfig) (*Hub, *transport.InProc) {
	t.Helper()
	in := transport.NewInProc(upstream.Func{ID: "embedded", Fn: n.Do, Heads: n.SubscribeHeads}, n.Server())
	pool := upstream.NewPool("test", upstream.PoolConfig{ProbeInterval: 50 * time.Millisecond}, append(first, upstream.MemberConfig{Upstream: in})...)
	pool.Start(context.Background())
	t.Cleanup(pool.Close)
	h := NewHub(opts, pool)
	t.Cleanup(h.Close)
	return h, in
}

// recorder is a Notifier that keeps what it receives.
type recorder struct {
	mu   sync.Mutex
	msgs []note
	got  chan struct{}
}

type note struct {
	id  string
	raw json.RawMessage
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 1<<16)} }

func (r *recorder) Notify(id string, n *jsonrpc.Notification) {
	var msg struct {
		Params struct {
			Subscription string
			Result       json.RawMessage
		}
	}
	if err := json.Unmarshal(n.AppendTo(nil, id), &msg); err != nil || msg.Params.Subscription != id {
		panic(fmt.Sprintf("notification for %s: %s %v", id, n.AppendTo(nil, id), err))
	}
	r.mu.Lock()
	r.msgs = append(r.msgs, note{id, msg.Params.Result})
	r.mu.Unlock()
	r.got <- struct{}{}
}

// heads waits for n notifications and returns their block numbers.
func (r *recorder) heads(t *testing.T, n int) []uint64 {
	t.Helper()
	for range n {
		select {
		case <-r.got:
		case <-time.After(60 * time.Second):
			t.Fatalf("only %d of %d notifications", len(r.msgs), n)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]uint64, 0, len(r.msgs))
	for _, m := range r.msgs {
		var h struct{ Number hexutil.Uint64 }
		if err := json.Unmarshal(m.raw, &h); err != nil {
			t.Fatalf("head %s: %v", m.raw, err)
		}
		out = append(out, uint64(h.Number))
	}
	return out
}

func subscribe(t testing.TB, c *Client, params string) string {
	t.Helper()
	id, err := c.Subscribe(context.Background(), json.RawMessage(params))
	if err != nil {
		t.Fatalf("subscribe %s: %v", params, err)
	}
	c.Release(id)
	return id
}

// TestSharedStreams: equal subscriptions share one upstream subscription,
// different filters get their own, and the last one out ends it.
func TestSharedStreams(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	h, _ := embeddedHub(t, n, Options{})
	a, b := h.NewClient(newRecorder(), 10, nil), h.NewClient(newRecorder(), 10, nil)
	ids := []string{
		subscribe(t, a, `["newHeads"]`),
		subscribe(t, b, `["newHeads"]`),
		subscribe(t, a, `["logs",{"address":"0x00000000000000000000000000000000000000aa"}]`),
		subscribe(t, b, `["logs",{"address":["0x00000000000000000000000000000000000000AA"]}]`),
		subscribe(t, b, `["logs",{}]`),
		subscribe(t, a, `["newPendingTransactions"]`),
	}
	if got := h.Streams(); got != 4 {
		t.Fatalf("%d upstream subscriptions, want 4 (newHeads, one address filter, all logs, pending)", got)
	}
	if ids[0] == ids[1] {
		t.Fatal("two clients got the same subscription id")
	}
	if err := a.Unsubscribe(ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := a.Unsubscribe(ids[0]); err == nil || err.Code != -32000 {
		t.Fatalf("second unsubscribe: %v", err)
	}
	if got := h.Streams(); got != 4 {
		t.Fatalf("newHeads still has a subscriber; streams %d", got)
	}
	a.Close()
	b.Close()
	if got := h.Streams(); got != 0 {
		t.Fatalf("%d streams left after every client closed", got)
	}
}

// TestSubscriptionLimit: a client gets at most its limit.
func TestSubscriptionLimit(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	h, _ := embeddedHub(t, n, Options{})
	c := h.NewClient(newRecorder(), 2, nil)
	subscribe(t, c, `["newHeads"]`)
	subscribe(t, c, `["newHeads"]`)
	if _, err := c.Subscribe(context.Background(), json.RawMessage(`["newHeads"]`)); err == nil || err.Code != -32005 {
		t.Fatalf("third subscription: %v", err)
	}
}

// keyAdmission is what nodegate's ingress gives a client: its key's
// subscriptions counted by the process's admission.
type keyAdmission struct {
	adm *admission.Keys
	key *keys.Key
}

func (k keyAdmission) TakeSubscription(int) *jsonrpc.Error { return k.adm.Subscription(k.key) }
func (k keyAdmission) GiveSubscriptions(n, _ int)          { k.adm.GiveSubscriptions(k.key, n) }

// TestKeyBudget: a key's subscriptions are bounded across its connections
// (the plan's max_subscriptions, through the client's Admission); one
// ended (unsubscribed, or its connection closed) gives its place back, and
// other keys are not counted.
func TestKeyBudget(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	h, _ := embeddedHub(t, n, Options{})
	budget := admission.New(0)
	k1, k2 := &keys.Key{ID: "k1", Plan: keys.Plan{MaxSubscriptions: 3}}, &keys.Key{ID: "k2", Plan: keys.Plan{MaxSubscriptions: 3}}
	a, b := h.NewClient(newRecorder(), 10, keyAdmission{budget, k1}), h.NewClient(newRecorder(), 10, keyAdmission{budget, k1})
	other := h.NewClient(newRecorder(), 10, keyAdmission{budget, k2})
	sub := func(c *Client) (string, *jsonrpc.Error) {
		return c.Subscribe(context.Background(), json.RawMessage(`["newHeads"]`))
	}
	first, _ := sub(a)
	sub(a)
	sub(b)
	if _, err := sub(b); err == nil || err.Code != -32005 || !strings.Contains(err.Message, "plan limit 3") {
		t.Fatalf("fourth subscription of the key, on its second connection: %v", err)
	}
	if _, err := sub(other); err != nil {
		t.Fatalf("another key's subscription: %v", err)
	}
	if err := a.Unsubscribe(first); err != nil {
		t.Fatal(err)
	}
	if _, err := sub(b); err != nil {
		t.Fatalf("after an unsubscribe: %v", err)
	}
	a.Close()
	if got := budget.Of("k1").Subscriptions; got != 2 {
		t.Fatalf("after the first connection closed the key holds %d, want 2", got)
	}
	sub(b)
	if _, err := sub(b); err == nil {
		t.Fatal("over the budget again, not refused")
	}
	b.Close()
	other.Close()
	if budget.Of("k1").Subscriptions+budget.Of("k2").Subscriptions != 0 {
		t.Fatalf("after every connection closed: k1 %d, k2 %d", budget.Of("k1").Subscriptions, budget.Of("k2").Subscriptions)
	}
}

// TestHeldUntilReleased: nothing reaches a client before its answer is out.
func TestHeldUntilReleased(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	h, _ := embeddedHub(t, n, Options{})
	r := newRecorder()
	c := h.NewClient(r, 10, nil)
	id, err := c.Subscribe(context.Background(), json.RawMessage(`["newHeads"]`))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_ = n.Commit()
	}
	time.Sleep(100 * time.Millisecond)
	r.mu.Lock()
	early := len(r.msgs)
	r.mu.Unlock()
	if early != 0 {
		t.Fatalf("%d notifications before release", early)
	}
	c.Release(id)
	base := n.Ethereum().BlockChain().CurrentBlock().Number.Uint64() - 2 // the head before the two commits
	if got := r.heads(t, 2); got[0] != base+1 || got[1] != base+2 {
		t.Fatalf("heads %v after release, want [%d %d]", got, base+1, base+2)
	}
}

// TestReconnectFillsGap: the upstream connection drops while blocks are
// produced; the hub re-subscribes, the client's id stays, and every block
// number arrives once, in order.
func TestReconnectFillsGap(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	h, in := embeddedHub(t, n, Options{})
	r := newRecorder()
	c := h.NewClient(r, 10, nil)
	base := n.Ethereum().BlockChain().CurrentBlock().Number.Uint64() // the dev chain's first head
	id := subscribe(t, c, `["newHeads"]`)
	for range 3 {
		_ = n.Commit()
	}
	r.heads(t, 3)
	for round := range 3 {
		in.Drop() // the upstream connection drops...
		for range 4 {
			_ = n.Commit() // ...while blocks are produced
		}
		r.heads(t, 4)
		if h.Member() != "embedded" {
			t.Fatalf("round %d: streams on %q", round, h.Member())
		}
	}
	got := r.heads(t, 0)
	for i, num := range got {
		if num != base+uint64(i+1) {
			t.Fatalf("heads %v: want %d..%d, each once", got, base+1, base+uint64(len(got)))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		if m.id != id {
			t.Fatalf("notification under id %s, want %s", m.id, id)
		}
	}
	if len(got) != 15 {
		t.Fatalf("%d heads, want 15", len(got))
	}
}

// TestDeadMemberSkipped: a member the pool took out of service (nothing
// listens at its address) is not subscribed on, even when it comes first.
func TestDeadMemberSkipped(t *testing.T) {
	n := evmnodetest.Start(t, evmnode.Config{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := l.Addr().String()
	_ = l.Close() // nothing listens there any more
	dead, err := transport.NewWS("ws://"+deadAddr, transport.WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := embeddedHub(t, n, Options{MaxBackoff: 50 * time.Millisecond}, upstream.MemberConfig{Upstream: dead, Priority: -1})
	c := h.NewClient(newRecorder(), 10, nil)
	subscribe(t, c, `["newHeads"]`)
	if h.Member() != "embedded" {
		t.Fatalf("streams on %q, want the embedded node", h.Member())
	}
}
