package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/deadline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// PoolConfig tunes a pool. Zero values take the defaults of withDefaults.
type PoolConfig struct {
	// MaxAttempts bounds the tries of one call, the first included.
	MaxAttempts int
	// RetryBudget bounds the time of all tries of one call together.
	RetryBudget time.Duration
	// AttemptTimeout bounds one try.
	AttemptTimeout time.Duration
	// FailThreshold is how many consecutive node faults take a member out.
	FailThreshold int
	// HeadInterval is how often a healthy member's head is polled.
	HeadInterval time.Duration
	// ProbeInterval is how often a member that is out is probed.
	ProbeInterval time.Duration
	// MaxLag is how many blocks behind the best head a member may be and
	// still be chosen (0: only members at the head).
	MaxLag uint64
	// LagMemory is how long the highest head ever seen keeps counting when
	// no healthy member reaches it any more (a node at the head died and
	// only lagging ones are left): during that time lagging members are
	// not chosen, so that "latest" never goes backwards for a client.
	LagMemory time.Duration
	// HeadWait bounds how long a call waits for a member in service to
	// reach the block it needs (the head a client was already given, after
	// the member at it died) before it is answered as unavailable.
	HeadWait time.Duration
	// NoBroadcast sends a signed transaction to one member, as any other
	// write; by default it goes to every member in service (broadcast.go).
	NoBroadcast bool
	// HeadMethod is the method that returns the head's number
	// (eth_blockNumber; starknet_blockNumber on Starknet networks).
	HeadMethod string
	// TrackFinalized asks each member for its finalized block number
	// (eth_getBlockByNumber("finalized")) whenever its head moved, so that
	// answers that can no longer change are known (EVM networks).
	TrackFinalized bool
	// Check, when set, vets a member before it serves: at start and each
	// time it comes back after being out (e.g. that it is on the
	// network's chain). An error keeps the member out, never chosen, with
	// the error as its reason, until a later check passes.
	Check func(ctx context.Context, u Upstream) error
}

func (c PoolConfig) withDefaults() PoolConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.RetryBudget <= 0 {
		c.RetryBudget = 30 * time.Second
	}
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = 15 * time.Second
	}
	if c.FailThreshold <= 0 {
		c.FailThreshold = 1
	}
	if c.HeadInterval <= 0 {
		c.HeadInterval = time.Second
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = 250 * time.Millisecond
	}
	if c.LagMemory <= 0 {
		c.LagMemory = 30 * time.Second
	}
	if c.HeadWait <= 0 {
		c.HeadWait = 5 * time.Second
	}
	return c
}

// MemberConfig describes one member to add to a pool.
type MemberConfig struct {
	Upstream Upstream
	Weight   int
	Priority int
	// BatchSize is the member's upstream batch size (0: DefaultBatchSize;
	// 1: no batches).
	BatchSize int
}

// Pool spreads calls over healthy members that have the block they name
// (or are at the head), retries idempotent calls on another member after a
// node fault or a lagging answer, sends signed transactions to every member
// and never sends another write twice once its bytes went out.
type Pool struct {
	id      string
	members []*Member
	cfg     PoolConfig

	// highWater is the highest head seen; metAt is when a healthy member
	// last stood at it (unix nanoseconds).
	highWater atomic.Uint64
	metAt     atomic.Int64

	// started: Start ran, so heads are tracked and answers may raise them.
	started atomic.Bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// changeCh is closed at the next change of health or head (follow.go).
	changeMu sync.Mutex
	changeCh chan struct{}

	gas gasLimit // the head block's gas limit (gaslimit.go)
	// OnChange, when set, is told when a member goes out or comes back.
	OnChange func(member string, healthy bool)
	// Observer, when set, sees every attempt of Forward (observe.go).
	Observer Observer
}

// ErrPoolUnavailable means no member could answer.
var ErrPoolUnavailable = errors.New("no upstream could answer")

// NewPool builds a pool; Start begins head tracking.
func NewPool(name string, cfg PoolConfig, members ...MemberConfig) *Pool {
	p := &Pool{id: name, cfg: cfg.withDefaults()}
	for _, mc := range members {
		p.members = append(p.members, newMember(mc.Upstream, mc.Weight, mc.Priority, mc.BatchSize))
	}
	return p
}

// Batches reports whether some member takes upstream batches.
func (p *Pool) Batches() bool {
	for _, m := range p.members {
		if m.BatchSize > 1 {
			return true
		}
	}
	return false
}

// Finalized is the highest finalized block number a healthy member
// reported (0 while unknown, or when not tracked). Blocks at or below it
// can no longer change.
func (p *Pool) Finalized() uint64 {
	var best uint64
	for _, m := range p.members {
		if m.Healthy() && m.finalized.Load() > best {
			best = m.finalized.Load()
		}
	}
	return best
}

// Members are the pool's members.
func (p *Pool) Members() []*Member { return p.members }

// Config is the pool's effective configuration.
func (p *Pool) Config() PoolConfig { return p.cfg }

// BestHead is the highest head among healthy members.
func (p *Pool) BestHead() uint64 {
	var best uint64
	for _, m := range p.members {
		if m.Healthy() && m.Head() > best {
			best = m.Head()
		}
	}
	return best
}

// target is the head a member must be at (within MaxLag) to be chosen:
// the best healthy head, or the higher head seen recently (see LagMemory).
func (p *Pool) target() uint64 {
	best := p.BestHead()
	hw := p.highWater.Load()
	now := time.Now().UnixNano()
	if best >= hw {
		if best > hw {
			p.highWater.CompareAndSwap(hw, best)
		}
		p.metAt.Store(now)
		return best
	}
	if time.Duration(now-p.metAt.Load()) > p.cfg.LagMemory {
		p.highWater.CompareAndSwap(hw, best) // the head really moved back (a reset chain): follow it
		return best
	}
	return hw
}

// Status reports every member's state.
func (p *Pool) Status() []MemberStatus {
	best := p.BestHead()
	out := make([]MemberStatus, len(p.members))
	for i, m := range p.members {
		out[i] = m.status(best)
	}
	return out
}

// Head is the head the pool serves from: the highest head of a member in
// service, or the higher head seen within LagMemory (see target).
func (p *Pool) Head() uint64 { return p.target() }

// floor is the lowest head a member must have to answer a call naming ref:
// the block it names, else the pool's head (less MaxLag); never below
// above (a lag retry asks a member ahead of the one that answered).
func (p *Pool) floor(ref blockRef, above uint64) uint64 {
	t := p.target()
	f := t - min(t, p.cfg.MaxLag)
	if ref.named {
		f = min(ref.number, t) // a block no member was seen at: the head is the best bet
	}
	return max(f, above)
}

// pick chooses among untried healthy members whose head is at or above
// floor, in the best priority tier, by the power of two random choices on
// expected wait.
func (p *Pool) pick(tried []bool) *Member {
	return p.pickAmong(tried, p.floor(blockRef{}, 0), true)
}

// choose picks the member of a call's next attempt (see pick). When no
// member in service has the block the call needs but one is below it (the
// member at the head died; the others follow it), it waits for one to
// reach it, up to HeadWait from its first wait and within the call's
// budget; waiting is not done for a lag retry (wait false). When still
// none can, it tries members out of service at the floor rather than
// none: a node taken out by a passing stall may answer, and a dead one
// fails fast, so the call still ends in an answer or in failover.
func (p *Pool) choose(ctx context.Context, tried []bool, ref blockRef, above uint64, wait bool, until *time.Time, budget time.Time) *Member {
	for {
		if m := p.pickAmong(tried, p.floor(ref, above), true); m != nil {
			return m
		}
		if !wait || !p.belowFloor(tried, p.floor(ref, above)) {
			break
		}
		changed := p.Changed()
		if m := p.pickAmong(tried, p.floor(ref, above), true); m != nil {
			return m // a head moved between the first look and the wait
		}
		if until.IsZero() {
			*until = time.Now().Add(p.cfg.HeadWait)
			if budget.Before(*until) {
				*until = budget
			}
		}
		d := time.Until(*until)
		if d <= 0 {
			break
		}
		t := time.NewTimer(d)
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if ctx.Err() != nil {
			return nil
		}
	}
	return p.pickAmong(tried, p.floor(ref, above), false)
}

// belowFloor reports whether an untried member in service is below floor:
// one that may yet reach it.
func (p *Pool) belowFloor(tried []bool, floor uint64) bool {
	for i, m := range p.members {
		if !tried[i] && m.InService() && m.Head() < floor {
			return true
		}
	}
	return false
}

// ahead reports whether an untried member in service has a head above n.
func (p *Pool) ahead(tried []bool, n uint64) bool {
	for i, m := range p.members {
		if !tried[i] && m.InService() && m.Head() > n {
			return true
		}
	}
	return false
}

func (p *Pool) pickAmong(tried []bool, floor uint64, healthy bool) *Member {
	var cands [16]*Member
	list := cands[:0]
	tier := int(^uint(0) >> 1)
	for i, m := range p.members {
		if tried[i] || m.Healthy() != healthy || m.excluded.Load() || m.Head() < floor {
			continue
		}
		switch {
		case m.Priority < tier:
			tier = m.Priority
			list = append(list[:0], m)
		case m.Priority == tier:
			list = append(list, m)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	a := list[rand.IntN(len(list))]
	b := list[rand.IntN(len(list))]
	if b.score() < a.score() {
		return b
	}
	return a
}

func (p *Pool) index(m *Member) int {
	for i, x := range p.members {
		if x == m {
			return i
		}
	}
	return -1
}

// Forward sends one body whose method the pool does not know: answered at
// the head, under the retry rules of Send.
func (p *Pool) Forward(ctx context.Context, body []byte, idempotent bool) (*jsonrpc.Response, error) {
	_, resp, _, err := p.forward(ctx, Call{Body: body, Idempotent: idempotent}, nil)
	return resp, err
}

// ForwardFrom is Forward that also names the member that answered.
func (p *Pool) ForwardFrom(ctx context.Context, body []byte, idempotent bool) (*jsonrpc.Response, string, error) {
	_, resp, member, err := p.forward(ctx, Call{Body: body, Idempotent: idempotent}, nil)
	return resp, member, err
}

// Send sends one call and returns its answer and the member that gave it.
// The call goes only to members that have the block it names (or are at
// the pool's head), waiting a bounded time for one; node faults
// (transport errors, 5xx/429, "header not found") are retried on another
// member when the call is idempotent, and a lagging member's answer (a
// null, "beyond current head") once on a member ahead of it; a write is
// retried only when its bytes never left (connection refused), and a
// signed transaction goes to every member (broadcast.go).
func (p *Pool) Send(ctx context.Context, c Call) (*jsonrpc.Response, string, error) {
	_, resp, member, err := p.forward(ctx, c, nil)
	return resp, member, err
}

// Do implements Upstream for callers that send raw bodies (internal reads
// of one request): the same choice and retries as an idempotent Forward.
func (p *Pool) Do(ctx context.Context, body []byte) ([]byte, error) {
	raw, _, _, err := p.forward(ctx, Call{Body: body, Idempotent: true}, nil)
	if err != nil {
		return nil, &Error{Upstream: p.Name(), Err: err}
	}
	return raw, nil
}

// forward is THE retry loop of one call: choice, attempts, retries within
// MaxAttempts and the retry budget. tried, when given, marks members that
// must not be asked (they already failed this call in an upstream batch).
// It returns the raw answer and its decoding.
func (p *Pool) forward(ctx context.Context, c Call, tried []bool) ([]byte, *jsonrpc.Response, string, error) {
	k := kindOf(c.Method)
	if k.write {
		if refused := p.checkRawTx(c.Params); refused != nil { // rawtx.go: never sent anywhere
			resp := &jsonrpc.Response{Err: refused}
			return jsonrpc.AppendResponse(nil, json.RawMessage("1"), resp), resp, "", nil
		}
	}
	if k.write && !c.Idempotent && !p.cfg.NoBroadcast && len(p.members) > 1 {
		return p.broadcast(ctx, c)
	}
	// The retry budget is a deadline each attempt honours, not a context of
	// its own: one timer per attempt is enough.
	budget := time.Now().Add(p.cfg.RetryBudget)
	if tried == nil {
		tried = make([]bool, len(p.members))
	}
	ref := k.blockOf(c.Params)
	future := p.beyondHeads(ref) // future.go: one attempt, its answer is the answer
	var (
		lastErr    error             = ErrPoolUnavailable
		lastAnswer *jsonrpc.Response // a node-fault or lag answer, kept in case no other node answers better
		lastRaw    []byte
		answeredBy string
		above      uint64 // a lag retry: the next member must be above this head
		waitUntil  time.Time
	)
	for attempt := 0; attempt < p.cfg.MaxAttempts; attempt++ {
		m := p.choose(ctx, tried, ref, above, above == 0 && !future, &waitUntil, budget)
		if m == nil {
			break
		}
		tried[p.index(m)] = true
		sentAt := m.Head()
		raw, resp, err := p.try(ctx, budget, m, c.Body)
		if err == nil {
			p.learn(m, k, c.Params, resp)
			if future {
				return raw, resp, m.Name(), nil
			}
			if c.Idempotent && IsNodeFaultAnswer(resp.Err) {
				lastAnswer, lastRaw, answeredBy = resp, raw, m.Name()
				continue // perhaps a lagging node: ask another one at the head
			}
			if c.Idempotent && above == 0 && p.lagging(k, ref, resp, sentAt) && p.ahead(tried, sentAt) {
				lastAnswer, lastRaw, answeredBy = resp, raw, m.Name()
				above = sentAt + 1 // once, on a member ahead of this one
				continue
			}
			return raw, resp, m.Name(), nil
		}
		lastErr = err
		if deadline.Expired(ctx) || !time.Now().Before(budget) || (!c.Idempotent && !NotSent(err)) {
			break
		}
	}
	if lastAnswer != nil {
		return lastRaw, lastAnswer, answeredBy, nil // every node says so: it is the answer
	}
	return nil, nil, "", fmt.Errorf("pool %s: %w (last: %w)", p.id, ErrPoolUnavailable, lastErr)
}

// lagging reports whether resp, the answer to a call of kind k naming ref
// from a member whose head was sentAt, may only mean that the member has
// not reached what the call asks for: a lag answer to a call that does not
// name a block the member was known to have.
func (p *Pool) lagging(k methodKind, ref blockRef, resp *jsonrpc.Response, sentAt uint64) bool {
	return !(ref.named && ref.number <= sentAt) && k.lagAnswer(resp)
}

// try makes one attempt of a single call on m and decodes its answer.
func (p *Pool) try(ctx context.Context, budget time.Time, m *Member, body []byte) ([]byte, *jsonrpc.Response, error) {
	actx, start := p.startAttempt(ctx, m)
	resp := new(jsonrpc.Response)
	out, err := p.attempt(actx, budget, m, body, func(out []byte) (err error) {
		_, *resp, err = jsonrpc.DecodeResponse(out)
		return err
	})
	if err != nil {
		p.endAttempt(actx, m, start, nil, err)
		return nil, nil, err
	}
	p.endAttempt(actx, m, start, resp, nil)
	return out, resp, nil
}

// attempt is THE one exchange with a member, single call or upstream batch:
// within the attempt timeout and the call's retry budget, counted in the
// member's in-flight calls and latency, and keeping its health up to date.
// check validates the answer's shape; an answer it refuses is a node fault.
func (p *Pool) attempt(ctx context.Context, budget time.Time, m *Member, body []byte, check func([]byte) error) ([]byte, error) {
	dl := time.Now().Add(p.cfg.AttemptTimeout)
	if budget.Before(dl) {
		dl = budget
	}
	actx, cancel := context.WithDeadline(ctx, dl)
	defer cancel()
	m.inflight.Add(1)
	start := time.Now()
	out, err := m.Upstream.Do(actx, body)
	m.inflight.Add(-1)
	if err == nil {
		if err = check(out); err != nil {
			err = &Error{Upstream: m.Name(), Err: err}
		} else {
			m.observe(time.Since(start))
			return out, nil
		}
	}
	if deadline.Expired(ctx) || !time.Now().Before(budget) {
		// The caller gave up, or its own deadline passed (an eth_getLogs
		// time limit), or the call's retry budget is spent: not the node's
		// fault. Only the attempt's own timeout, with time left, is.
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, context.DeadlineExceeded // passed, though ctx's timer has not fired yet
	}
	if m.fault(err, p.cfg.FailThreshold) {
		slog.Warn("upstream out of service", "pool", p.id, "upstream", m.Name(), "err", err)
		p.changed(m, false)
	}
	return nil, err
}

func (p *Pool) changed(m *Member, healthy bool) {
	p.signal()
	if p.OnChange != nil {
		p.OnChange(m.Name(), healthy)
	}
}

// Name implements Upstream.
func (p *Pool) Name() string { return "pool:" + p.id }

// Close stops head tracking.
func (p *Pool) Close() {
	if p.cancel != nil {
		p.cancel()
		p.wg.Wait()
	}
}
