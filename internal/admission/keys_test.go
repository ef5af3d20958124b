package admission

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

func key(id string, plan keys.Plan) *keys.Key { return &keys.Key{ID: id, Plan: plan} }

// capCase is one per-key cap seen the same way: take one use of key, or
// be refused; how many the key holds.
type capCase struct {
	name string
	plan func(limit int) keys.Plan
	take func(a *Keys, k *keys.Key) (release func(), refused *jsonrpc.Error)
	held func(u Use) int
	// refusal is what the cap answers over its limit of 2.
	refusal jsonrpc.Error
}

var caps = []capCase{
	{
		name: "calls in flight",
		plan: func(l int) keys.Plan { return keys.Plan{MaxInFlight: l} },
		take: func(a *Keys, k *keys.Key) (func(), *jsonrpc.Error) {
			got, release, refused := a.Calls(k, 1)
			if (refused == nil) != (got == 1) {
				panic("Calls: a grant and a refusal disagree")
			}
			return release, refused
		},
		held: func(u Use) int { return u.Calls },
		refusal: jsonrpc.Error{Code: -32005, Status: http.StatusTooManyRequests,
			Message: "too many calls in flight for this API key (limit 2): wait for answers before sending more",
			Data:    []byte(`{"max_in_flight":2}`)},
	},
	{
		name:    "WebSockets",
		plan:    func(l int) keys.Plan { return keys.Plan{MaxWSConnections: l} },
		take:    func(a *Keys, k *keys.Key) (func(), *jsonrpc.Error) { return a.WebSocket(k) },
		held:    func(u Use) int { return u.WebSockets },
		refusal: jsonrpc.Error{Code: -32005, Status: http.StatusTooManyRequests, Message: "too many WebSocket connections for this API key (plan limit 2)"},
	},
	{
		name: "subscriptions",
		plan: func(l int) keys.Plan { return keys.Plan{MaxSubscriptions: l} },
		take: func(a *Keys, k *keys.Key) (func(), *jsonrpc.Error) {
			if refused := a.Subscription(k); refused != nil {
				return nil, refused
			}
			return func() { a.GiveSubscriptions(k, 1) }, nil
		},
		held:    func(u Use) int { return u.Subscriptions },
		refusal: jsonrpc.Error{Code: -32005, Message: "too many subscriptions for this API key (plan limit 2)"},
	},
}

// TestCaps: each cap admits a key up to its plan's limit and refuses the
// next use with today's answer; a release gives a place back; other keys
// are not counted; 0 is unlimited; no key is never refused nor counted.
func TestCaps(t *testing.T) {
	for _, c := range caps {
		t.Run(c.name, func(t *testing.T) {
			a := New(0)
			k, other := key("k", c.plan(2)), key("other", c.plan(2))
			r1, e1 := c.take(a, k)
			_, e2 := c.take(a, k)
			if e1 != nil || e2 != nil {
				t.Fatalf("within the limit: %v, %v", e1, e2)
			}
			_, refused := c.take(a, k)
			if refused == nil {
				t.Fatal("over the limit: admitted")
			}
			if refused.Code != c.refusal.Code || refused.Status != c.refusal.Status || refused.Message != c.refusal.Message || string(refused.Data) != string(c.refusal.Data) {
				t.Fatalf("refusal %+v, want %+v", refused, c.refusal)
			}
			if got := c.held(a.Of("k")); got != 2 {
				t.Fatalf("the key holds %d, want 2", got)
			}
			if _, e := c.take(a, other); e != nil {
				t.Fatalf("another key: %v", e)
			}
			r1()
			if got := c.held(a.Of("k")); got != 1 {
				t.Fatalf("after a release the key holds %d, want 1", got)
			}
			if _, e := c.take(a, k); e != nil {
				t.Fatalf("after a release: %v", e)
			}

			unlimited := key("unlimited", c.plan(0))
			for i := range 1000 {
				if _, e := c.take(a, unlimited); e != nil {
					t.Fatalf("unlimited key refused at %d: %v", i, e)
				}
			}
			for range 3 {
				if release, e := c.take(a, nil); e != nil {
					t.Fatalf("no key: %v", e)
				} else {
					release()
				}
			}
		})
	}
}

// TestCallsPartialGrant: a batch gets as many calls as its key has free,
// and gives back exactly those.
func TestCallsPartialGrant(t *testing.T) {
	for _, tc := range []struct {
		name        string
		limit, held int
		want, got   int
		wantRefusal bool
	}{
		{"all free", 4, 0, 3, 3, false},
		{"fewer free than wanted", 4, 2, 5, 2, false},
		{"none free", 4, 4, 2, 0, true},
		{"nothing wanted", 4, 4, 0, 0, false},
		{"unlimited", 0, 0, 50, 50, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(0)
			k := key("k", keys.Plan{MaxInFlight: tc.limit})
			if tc.held > 0 {
				if got, _, _ := a.Calls(k, tc.held); got != tc.held {
					t.Fatalf("setup: held %d", got)
				}
			}
			got, release, refused := a.Calls(k, tc.want)
			if got != tc.got || (refused != nil) != tc.wantRefusal {
				t.Fatalf("got %d, refused %v; want %d, refusal %v", got, refused, tc.got, tc.wantRefusal)
			}
			release()
			if tc.limit > 0 {
				if held := a.Of("k").Calls; held != tc.held {
					t.Fatalf("after the release the key holds %d, want %d", held, tc.held)
				}
			}
		})
	}
}

// TestTurns: with a share, a key runs that many execution calls at once
// (the next waits until one is released, or its context ends), other keys
// run theirs; without a share nothing waits.
func TestTurns(t *testing.T) {
	ctx := context.Background()
	a := New(2)
	k := key("k", keys.Plan{})
	r1, err1 := a.Turn(ctx, k, "")
	_, err2 := a.Turn(ctx, k, "")
	if err1 != nil || err2 != nil {
		t.Fatalf("within the share: %v, %v", err1, err2)
	}
	if got := a.Of("k").Executions; got != 2 {
		t.Fatalf("the key holds %d turns, want 2", got)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := a.Turn(cancelled, k, ""); err == nil {
		t.Fatal("over the share, a cancelled wait got a turn")
	}
	if _, err := a.Turn(ctx, key("other", keys.Plan{}), ""); err != nil {
		t.Fatalf("another key: %v", err)
	}
	waited := make(chan *jsonrpc.Error, 1)
	go func() {
		_, err := a.Turn(ctx, k, "")
		waited <- err
	}()
	select {
	case err := <-waited:
		t.Fatalf("over the share, a call did not wait (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	r1()
	if err := <-waited; err != nil {
		t.Fatalf("after a release: %v", err)
	}
	for _, tc := range []struct {
		name string
		a    *Keys
	}{
		{"no share", New(0)},
		{"zero value", &Keys{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 100 {
				if _, err := tc.a.Turn(cancelled, k, ""); err != nil {
					t.Fatalf("waited: %v", err)
				}
			}
		})
	}
}
