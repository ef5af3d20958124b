package upstream

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The watches of a pool's calls in flight (hedge.go): one list under one
// lock, one timer set to the earliest hedge due, the budget of hedges, and
// the members that hang. Nothing here does I/O: a hedge is sent on a
// goroutine of its own, after the lock is let go.

// tokenUnit is one hedge in the budget's tokens (a call earns
// HedgeConfig.Share of one).
const tokenUnit = 1000

// hedger is a pool's hedging, made once with the pool.
type hedger struct {
	p   *Pool
	cfg HedgeConfig
	// lat are the members' latency histograms, by member index.
	lat []methodLatencies
	// silentSince, by member index: when a call of the member was first
	// hedged since its last answer (unix nanoseconds; 0: it answered
	// since). A member silent since a hedge hangs: its calls in flight are
	// given away without waiting for the budget.
	silentSince []atomic.Int64
	free        sync.Pool // *watch

	mu      sync.Mutex
	watches []*watch
	next    time.Time // when the timer fires (zero: not set)
	timer   *time.Timer
	tokens  int64 // tokenUnit a hedge
	// watched counts the calls watched (the clock of held.go's rates).
	watched atomic.Uint32

	sent, won atomic.Uint64
}

func newHedger(p *Pool) *hedger {
	h := &hedger{p: p, cfg: p.cfg.Hedge.withDefaults(), lat: make([]methodLatencies, len(p.members)),
		silentSince: make([]atomic.Int64, len(p.members))}
	h.tokens = int64(h.cfg.Burst) * tokenUnit
	h.free.New = func() any { return &watch{idx: -1, done: make(chan hedgeResult, 1)} }
	h.timer = time.AfterFunc(time.Hour, h.tick)
	h.timer.Stop()
	return h
}

// start watches c's attempt on m, or returns nil when c is not hedged (a
// write, a call without a rule, hedging off, a method that runs code
// without the time for a hedge; for the last, with its method's histogram
// on m, which still learns from the call).
func (h *hedger) start(ctx context.Context, budget time.Time, m *Member, c Call, tried []bool, floor uint64) (*watch, *latencyQuantile) {
	if h.cfg.Off || c.Rule == nil || !c.Idempotent || c.Rule.Write || len(h.p.members) < 2 {
		return nil, nil
	}
	pi := h.p.index(m)
	lat := h.lat[pi].of(c.Rule.Name, h.cfg.Quantile)
	now := time.Now()
	var limit time.Time
	if c.Rule.Executes {
		dl, ok := ctx.Deadline()
		if !ok {
			return nil, lat
		}
		limit = now.Add(time.Duration(h.cfg.ExecutionShare * float64(dl.Sub(now))))
	}
	w := h.free.Get().(*watch)
	// A copy of tried: the caller's stays its own (on its stack).
	w.h, w.ctx, w.body, w.budget, w.tried, w.floor = h, ctx, c.Body, budget, append(w.tried[:0], tried...), floor
	w.primary, w.pi, w.lat, w.method, w.limit = m, pi, lat, c.Rule.Name, limit
	w.at, w.delay, w.overdue = time.Time{}, 0, false
	if q := h.delay(pi, c.Rule.Name, lat); q > 0 { // hedgedelay.go
		w.delay = max(q, h.cfg.MinDelay)
		w.at = now.Add(w.delay)
		if !limit.IsZero() && w.at.After(limit) {
			w.at = time.Time{} // no timed hedge: only a hand-over
		}
	}
	h.register(w)
	return w, lat
}

// register adds w to the list, earns the budget a call's share and sets
// the timer when w is due first.
func (h *hedger) register(w *watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens = min(h.tokens+int64(h.cfg.Share*tokenUnit), int64(h.cfg.Burst)*tokenUnit)
	h.watched.Add(1)
	w.idx = len(h.watches)
	h.watches = append(h.watches, w)
	if !w.at.IsZero() && (h.next.IsZero() || w.at.Before(h.next)) {
		h.next = w.at
		h.timer.Reset(time.Until(w.at))
	}
}

// settle ends the watch of an attempt that returned: it reports whether a
// hedge was sent (then w belongs to the call's two attempts and is not
// used again); otherwise w is put back for another call. An attempt
// answered within its hedge delay counts as not held (held.go; one
// hedged counts as held when its hedge is sent, in tick).
func (h *hedger) settle(w *watch) bool {
	h.mu.Lock()
	fired := w.fired
	inTime := !fired && !w.overdue && !w.at.IsZero()
	if !fired {
		h.removeLocked(w)
	}
	h.mu.Unlock()
	if fired {
		return true
	}
	if inTime {
		w.primary.held.note(false, 0, h.watched.Load())
	}
	*w = watch{idx: -1, done: w.done, tried: w.tried}
	h.free.Put(w)
	return false
}

// removeLocked takes w off the list.
func (h *hedger) removeLocked(w *watch) {
	i := w.idx
	if i < 0 {
		return
	}
	last := len(h.watches) - 1
	h.watches[i] = h.watches[last]
	h.watches[i].idx = i
	h.watches[last] = nil
	h.watches = h.watches[:last]
	w.idx = -1
}

// launch is a hedge to send once the lock is let go.
type launch struct {
	w *watch
	m *Member
}

// tick sends the hedges that are due and sets the timer to the next one.
func (h *hedger) tick() {
	var buf [8]launch
	due := buf[:0]
	now := time.Now()
	h.mu.Lock()
	h.next = time.Time{}
	for i := 0; i < len(h.watches); {
		w := h.watches[i]
		if !w.at.IsZero() && !w.at.After(now) {
			w.overdue = true
			if m := h.fireLocked(w, now, false); m != nil {
				w.primary.held.note(true, w.delay, h.watched.Load()) // held.go
				due = append(due, launch{w, m})
				continue // w's place holds another watch now
			}
			w.at = time.Time{} // no budget or no member: only a hand-over
		}
		if !w.at.IsZero() && (h.next.IsZero() || w.at.Before(h.next)) {
			h.next = w.at
		}
		i++
	}
	if !h.next.IsZero() {
		h.timer.Reset(time.Until(h.next))
	}
	h.mu.Unlock()
	for _, l := range due {
		go h.p.runHedge(l.w, l.m)
	}
}

// memberOut gives the calls in flight on m, just taken out of service, to
// other members.
func (h *hedger) memberOut(m *Member) {
	var buf [8]launch
	due := buf[:0]
	now := time.Now()
	h.mu.Lock()
	for i := 0; i < len(h.watches); {
		w := h.watches[i]
		if w.primary == m {
			if to := h.fireLocked(w, now, true); to != nil {
				due = append(due, launch{w, to})
				continue
			}
		}
		i++
	}
	h.mu.Unlock()
	for _, l := range due {
		go h.p.runHedge(l.w, l.m)
	}
}

// fireLocked chooses the member w's hedge goes to and takes w off the
// list, or returns nil when w is not hedged now: past its limit, no budget
// (unless handOver, or its member hangs), or no other member.
func (h *hedger) fireLocked(w *watch, now time.Time, handOver bool) *Member {
	if !w.limit.IsZero() && now.After(w.limit) {
		return nil
	}
	silent := h.silentSince[w.pi].Load()
	free := handOver || silent != 0
	if !free && h.tokens < tokenUnit {
		return nil
	}
	m := h.hedgeMember(w, free)
	if m == nil {
		return nil
	}
	if !free {
		h.tokens -= tokenUnit
	}
	if silent == 0 {
		h.silentSince[w.pi].Store(now.UnixNano())
	}
	mi := h.p.index(m)
	w.tried[mi] = true
	// The hedge may run on after the call returned and its body went back
	// to its owner's pool: it sends a copy.
	w.body = bytes.Clone(w.body)
	w.hedged, w.hlat = m, h.lat[mi].of(w.method, h.cfg.Quantile)
	w.fired = true
	h.removeLocked(w)
	return m
}

// hedgeMember is the member w's hedge goes to: for a late answer, only
// one on the canonical branch while w's member is on it — a member on
// another branch answers a lookup null, or with a block off the chain,
// fast, and its answer would win against the one that has the block (a
// reorganisation keeps the member that switched first busy: issue 31's
// fleet gave a client null for a receipt it had been given). A call
// handed over (its member out or hanging, free) goes to any member, as
// does one whose member is on another branch itself.
func (h *hedger) hedgeMember(w *watch, free bool) *Member {
	if free || w.primary.offBranch.Load() {
		return h.p.pickAmong(w.tried, w.floor, true)
	}
	return h.p.pickOf(w.tried, w.floor, true, true)
}

// answered notes that the member of an attempt answered: it does not hang.
func (h hedgeRole) answered() {
	if h.w == nil {
		return
	}
	i := h.w.pi
	if h.role == roleHedge {
		i = h.w.h.p.index(h.w.hedged)
	}
	if s := &h.w.h.silentSince[i]; s.Load() != 0 {
		s.Store(0)
	}
}
