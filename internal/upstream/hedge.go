package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Hedged reads (docs/pools.md, "Hedged reads"): an idempotent read that
// its member has not answered within the method's recent latency quantile
// on that member (latency.go) is sent to a second member as well (one on
// the canonical branch while the first is: hedgewatch.go); the
// first answer is the call's, and the other attempt is cancelled — not a
// fault of its member, and not counted in its latency. Writes are never
// hedged; a method that runs code (methods.Rule.Executes) only while its
// hedge starts within HedgeConfig.ExecutionShare of the time its deadline
// (the plan's call_timeout) left it when it was sent. A budget caps the
// hedges at HedgeConfig.Share of the calls. A member that goes out of
// service gives its calls in flight to another member at once, and so does
// a member that answered nothing since one of its calls was hedged (it
// hangs): neither is charged to the budget (hedgewatch.go).
//
// An unhedged call costs a lock, a histogram count and no allocation: its
// watch comes from a sync.Pool and the one timer of the pool wakes only
// when a call is due (hedgewatch.go).

// HedgeConfig tunes hedged reads. Zero values take the defaults.
type HedgeConfig struct {
	// Off turns hedging off: a call waits for its member (hung members'
	// calls are then retried only when the member's attempt fails).
	Off bool
	// Quantile is the latency quantile of a method on a member past which
	// a call is hedged (DefaultHedgeQuantile).
	Quantile float64
	// MinDelay is the shortest hedge delay (DefaultHedgeMinDelay): a
	// method answered faster than it is hedged only after it.
	MinDelay time.Duration
	// Share caps the hedges at this fraction of the calls
	// (DefaultHedgeShare); Burst is how many hedges may go at once beyond
	// it after a quiet time (DefaultHedgeBurst).
	Share float64
	Burst int
	// ExecutionShare: a call of a method that runs code is hedged only
	// when its hedge starts within this fraction of the time its deadline
	// left it at its first attempt (DefaultHedgeExecutionShare; a call
	// without a deadline is not hedged).
	ExecutionShare float64
}

// The defaults of HedgeConfig.
const (
	DefaultHedgeQuantile       = 0.99
	DefaultHedgeMinDelay       = time.Millisecond
	DefaultHedgeShare          = 0.10
	DefaultHedgeBurst          = 10
	DefaultHedgeExecutionShare = 0.5
)

func (c HedgeConfig) withDefaults() HedgeConfig {
	if c.Quantile <= 0 || c.Quantile >= 1 {
		c.Quantile = DefaultHedgeQuantile
	}
	if c.MinDelay <= 0 {
		c.MinDelay = DefaultHedgeMinDelay
	}
	if c.Share <= 0 {
		c.Share = DefaultHedgeShare
	}
	if c.Burst <= 0 {
		c.Burst = DefaultHedgeBurst
	}
	if c.ExecutionShare <= 0 || c.ExecutionShare > 1 {
		c.ExecutionShare = DefaultHedgeExecutionShare
	}
	return c
}

// errHedgeLost is the outcome of the attempt of a hedged call that did not
// answer first: not its member's fault (a cancellation, as metrics count it).
var errHedgeLost = fmt.Errorf("another member answered the hedged call first: %w", context.Canceled)

// The roles of the two attempts of a hedged call (watch.winner).
const (
	rolePrimary int32 = 1
	roleHedge   int32 = 2
)

// hedgeRole is what an attempt knows of its call's hedging: its watch
// (nil: the call is not watched, an upstream batch or a write) and which
// of the two attempts it is.
type hedgeRole struct {
	w    *watch
	role int32
	// lat, for a call not watched (a method that runs code without the
	// time for a hedge), is its method's histogram on its member.
	lat *latencyQuantile
}

// watch is one call's attempt on its first member, watched for a hedge.
type watch struct {
	h      *hedger
	ctx    context.Context
	body   []byte
	budget time.Time
	tried  []bool
	floor  uint64
	// primary is the member of the first attempt, pi its index; lat the
	// method's latency histogram there; method the histograms' key.
	primary *Member
	pi      int
	lat     *latencyQuantile
	method  string
	// at is when the call is hedged (zero: only when its member goes out
	// or hangs); limit the last moment a hedge may start (zero: none).
	at, limit time.Time
	// delay is the hedge delay at was set from; overdue: at passed
	// before the attempt returned (hedger.mu; for held.go).
	delay   time.Duration
	overdue bool
	idx     int  // place in hedger.watches (-1: not there)
	fired   bool // a hedge was sent (hedger.mu)

	// winner is the role whose answer is the call's (0: none yet).
	winner atomic.Int32
	mu     sync.Mutex
	cancel [2]context.CancelFunc // each attempt's, by role-1
	hedged *Member
	hlat   *latencyQuantile
	done   chan hedgeResult // the hedge's outcome, sent once
}

type hedgeResult struct {
	m    *Member
	raw  []byte
	resp *jsonrpc.Response
	err  error
}

// arm records the attempt's cancel func, and cancels at once an attempt
// that already lost.
func (h hedgeRole) arm(cancel context.CancelFunc) {
	if h.w == nil {
		return
	}
	h.w.mu.Lock()
	h.w.cancel[h.role-1] = cancel
	won := h.w.winner.Load()
	h.w.mu.Unlock()
	if won != 0 && won != h.role {
		cancel()
	}
}

// claim reports whether the attempt's outcome (ok: an answer) is the
// call's: an answer is when no other answered first; a failure is when the
// other attempt has not won (then it is its member's fault as ever).
func (h hedgeRole) claim(ok bool) bool {
	if h.w == nil {
		return true
	}
	if ok && h.w.winner.CompareAndSwap(0, h.role) {
		return true
	}
	won := h.w.winner.Load()
	return won == h.role || (!ok && won == 0)
}

// cancelOther cancels the attempt of the other role.
func (h hedgeRole) cancelOther() {
	h.w.mu.Lock()
	cancel := h.w.cancel[2-h.role]
	h.w.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// observe counts an answer of d in the histogram of its member's role.
func (h hedgeRole) observe(d time.Duration) {
	if h.w == nil {
		if h.lat != nil {
			h.lat.record(d)
		}
		return
	}
	l := h.w.lat
	if h.role == roleHedge {
		l = h.w.hlat
	}
	if l != nil {
		l.record(d)
	}
}

// tryHedged is the attempt of c on m, hedged on another member when m does
// not answer in time: it returns the member that answered.
func (p *Pool) tryHedged(ctx context.Context, budget time.Time, m *Member, c Call, tried []bool, floor uint64) (*Member, []byte, *jsonrpc.Response, error) {
	w, lat := p.hedges.start(ctx, budget, m, c, tried, floor)
	if w == nil {
		raw, resp, err := p.try(ctx, budget, m, c.Body, hedgeRole{lat: lat})
		return m, raw, resp, err
	}
	raw, resp, err := p.try(ctx, budget, m, c.Body, hedgeRole{w: w, role: rolePrimary})
	if !p.hedges.settle(w) {
		return m, raw, resp, err // never hedged
	}
	// The watch holds its own copy of tried; the hedge's member is marked
	// in the call's only when it answered or failed (a member cancelled
	// did not fail the call: it may be asked again, as when the answer
	// that won fails a check).
	if err == nil {
		hedgeRole{w: w, role: rolePrimary}.cancelOther() // m answered first
		return m, raw, resp, nil
	}
	r := <-w.done
	tried[p.index(w.hedged)] = true
	if r.err != nil && !errors.Is(err, errHedgeLost) {
		return m, nil, nil, err // both failed: m's failure is the call's
	}
	if errors.Is(err, errHedgeLost) {
		tried[w.pi] = false
	}
	return r.m, r.raw, r.resp, r.err
}

// runHedge is the hedge of w on m: its outcome goes to w.done.
func (p *Pool) runHedge(w *watch, m *Member) {
	if p.OnHedgeSent != nil {
		p.OnHedgeSent(m.Name())
	}
	p.hedges.sent.Add(1)
	role := hedgeRole{w: w, role: roleHedge}
	raw, resp, err := p.try(w.ctx, w.budget, m, w.body, role)
	if err == nil {
		role.cancelOther()
		p.hedges.won.Add(1)
		if p.OnHedgeWon != nil {
			p.OnHedgeWon(m.Name())
		}
	}
	w.done <- hedgeResult{m, raw, resp, err}
}

// Hedges are the hedges the pool sent and those that answered first.
func (p *Pool) Hedges() (sent, won uint64) {
	return p.hedges.sent.Load(), p.hedges.won.Load()
}
