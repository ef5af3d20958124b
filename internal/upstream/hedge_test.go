package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// stallMarker in a call's params makes a stallNode hold the call.
const stallMarker = "0x00000000000000000000000000000000005ta11e"

// stallNode is a JSON-RPC node on loopback that answers every call at once
// with its own name, except the calls naming stallMarker, which it holds
// for stall (until the caller gives up). Its head polls fail while down.
type stallNode struct {
	name    string
	srv     *httptest.Server
	stall   atomic.Int64 // ns
	down    atomic.Bool
	held    atomic.Int64 // calls held now
	stalled atomic.Int64 // calls held, in all
	// every, when set, holds one call in every (stallMarker or not), and
	// answers it "<name>-held"; seen counts the calls for it.
	every, seen atomic.Int64
	// calls counts the calls it got (head polls aside).
	calls atomic.Int64
}

func newStallNode(t *testing.T, name string, stall time.Duration) *stallNode {
	t.Helper()
	n := &stallNode{name: name}
	n.stall.Store(int64(stall))
	n.srv = httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *stallNode) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &req)
	if req.Method == "eth_blockNumber" {
		if n.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x10"}`, req.ID)
		return
	}
	n.calls.Add(1)
	name := n.name
	if e := n.every.Load(); e > 0 && n.seen.Add(1)%e == 0 {
		name += "-held"
	}
	if name != n.name || strings.Contains(string(body), stallMarker) {
		n.stalled.Add(1)
		n.held.Add(1)
		t := time.NewTimer(time.Duration(n.stall.Load()))
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
		n.held.Add(-1)
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%q}`, req.ID, name)
}

// hedgeRule is the EVM method table's rule of method.
func hedgeRule(t *testing.T, method string) *methods.Rule {
	t.Helper()
	r, err := methods.NewTable(methods.FamilyEVM).Lookup(method)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hedgePool is a pool of a staller (preferred: priority 0) and a fast
// member, warmed with calls enough for the staller's latency quantile of
// method.
func hedgePool(t *testing.T, hc upstream.HedgeConfig, stall time.Duration, method string) (*upstream.Pool, *stallNode) {
	t.Helper()
	staller, fast := newStallNode(t, "staller", stall), newStallNode(t, "fast", 0)
	sm, fm := httpMember(t, staller.srv.URL), httpMember(t, fast.srv.URL)
	sm.Name, fm.Name, fm.Priority = "staller", "fast", 1
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, AttemptTimeout: time.Minute, Hedge: hc}, sm, fm)
	for range 64 {
		hedgeSend(t, context.Background(), p, hedgeRule(t, method), true, "0x01")
	}
	return p, staller
}

// hedgeSend sends one call of r naming addr and returns its answer's result and
// the member that gave it.
func hedgeSend(t *testing.T, ctx context.Context, p *upstream.Pool, r *methods.Rule, idempotent bool, addr string) (string, string) {
	t.Helper()
	res, who, err := hedgeTrySend(ctx, p, r, idempotent, addr)
	if err != nil {
		t.Fatal(err)
	}
	return res, who
}

func hedgeTrySend(ctx context.Context, p *upstream.Pool, r *methods.Rule, idempotent bool, addr string) (string, string, error) {
	params := fmt.Sprintf(`[{"to":%q},"latest"]`, addr)
	if r.Name == "eth_getBalance" {
		params = fmt.Sprintf(`[%q,"latest"]`, addr)
	}
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, r.Name, params)
	resp, who, err := p.Send(ctx, upstream.Call{Body: body, Rule: r, Params: json.RawMessage(params), Idempotent: idempotent})
	if err != nil {
		return "", "", err
	}
	return string(resp.Result), who, nil
}

// TestHedgedReads: a read its member holds past the method's latency
// quantile there is answered by the other member, the first member
// neither faulted nor slowed in its score for it; a call that may not be
// retried is never hedged, nor a call that runs code once its hedge would
// start past its share of its deadline; with hedging off the call waits.
func TestHedgedReads(t *testing.T) {
	t.Parallel()
	// slow is a hedge delay the warm-up's answers (on loopback) do not
	// reach on a busy machine but for a rare one, whose hedge the
	// counts below leave out.
	const slow = 100 * time.Millisecond
	cases := []struct {
		name       string
		hedge      upstream.HedgeConfig
		method     string
		idempotent bool
		deadline   time.Duration // the call's (0: none)
		stall      time.Duration
		wantHedged bool
	}{
		{"a held read goes to the other member", upstream.HedgeConfig{MinDelay: slow}, "eth_getBalance", true, 0, time.Minute, true},
		{"hedging off: the read waits for its member", upstream.HedgeConfig{Off: true}, "eth_getBalance", true, 0, 200 * time.Millisecond, false},
		{"a call that may not be retried is not hedged", upstream.HedgeConfig{MinDelay: slow}, "eth_getBalance", false, 0, 200 * time.Millisecond, false},
		{"eth_call within its execution share is hedged", upstream.HedgeConfig{MinDelay: slow}, "eth_call", true, time.Minute, time.Minute, true},
		{"eth_call past its execution share is not hedged", upstream.HedgeConfig{MinDelay: 2 * time.Second}, "eth_call", true, 3 * time.Second, 200 * time.Millisecond, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, staller := hedgePool(t, tc.hedge, tc.stall, tc.method)
			sent0, won0 := p.Hedges()
			for i := range 3 {
				ctx := context.Background()
				if tc.deadline > 0 {
					c, cancel := context.WithTimeout(ctx, tc.deadline)
					defer cancel()
					ctx = c
				}
				_, who := hedgeSend(t, ctx, p, hedgeRule(t, tc.method), tc.idempotent, stallMarker)
				if hedged := who == "fast"; hedged != tc.wantHedged {
					t.Fatalf("call %d answered by %s (hedged %v, want %v)", i, who, hedged, tc.wantHedged)
				}
			}
			sent, won := p.Hedges()
			sent, won = sent-sent0, won-won0
			if tc.wantHedged != (won == 3) || (!tc.wantHedged && sent != 0) {
				t.Fatalf("hedges sent %d, won %d", sent, won)
			}
			st := p.Status()[0]
			if !st.Healthy || st.Fails != 0 || (tc.wantHedged && st.LatencyMS > 100) {
				t.Fatalf("the member that lost: %+v", st)
			}
			testenv.WaitFor(t, 10*time.Second, "the held calls cancelled", func() bool { return staller.held.Load() == 0 })
		})
	}
}

// TestHungMemberGivesItsCallsAway: a member that answers nothing gives
// every call it holds to the other member once one is hedged, beyond the
// budget (one hedge); and a member taken out of service gives its calls
// in flight away at once, before any hedge delay is known.
func TestHungMemberGivesItsCallsAway(t *testing.T) {
	t.Parallel()
	const calls = 5
	cases := []struct {
		name  string
		hedge upstream.HedgeConfig
		warm  bool // a hedge delay is known
		out   bool // the member is then taken out of service
	}{
		// (the delay is long enough that no warm-up call spends the one hedge)
		{"hung past its hedge delay", upstream.HedgeConfig{Burst: 1, Share: 0.001, MinDelay: 200 * time.Millisecond}, true, false},
		{"taken out of service", upstream.HedgeConfig{}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			staller, fast := newStallNode(t, "staller", time.Hour), newStallNode(t, "fast", 0)
			sm, fm := httpMember(t, staller.srv.URL), httpMember(t, fast.srv.URL)
			sm.Name, fm.Name, fm.Priority = "staller", "fast", 1
			p := startPool(t, upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, AttemptTimeout: time.Hour, RetryBudget: time.Hour, Hedge: tc.hedge}, sm, fm)
			r := hedgeRule(t, "eth_getBalance")
			if tc.warm {
				for range 64 {
					hedgeSend(t, context.Background(), p, r, true, "0x01")
				}
			}
			var (
				wg       sync.WaitGroup
				answered atomic.Int64
				byFast   atomic.Int64
			)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for range calls {
				wg.Go(func() {
					if _, who, err := hedgeTrySend(ctx, p, r, true, stallMarker); err != nil {
						t.Error(err)
					} else if who == "fast" {
						byFast.Add(1)
					}
					answered.Add(1)
				})
			}
			if tc.out {
				testenv.WaitFor(t, 30*time.Second, "the calls held", func() bool { return staller.held.Load() == calls })
				staller.down.Store(true)
			}
			testenv.WaitFor(t, 30*time.Second, "every call answered", func() bool { return answered.Load() == calls })
			wg.Wait()
			if byFast.Load() != calls {
				t.Fatalf("%d of %d calls answered by the other member", byFast.Load(), calls)
			}
		})
	}
}
