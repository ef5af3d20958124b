package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

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

// Pool spreads calls over healthy members that are at the head, retries
// idempotent calls on another member after a node fault, and never sends a
// write twice once its bytes went out.
type Pool struct {
	id      string
	members []*Member
	cfg     PoolConfig

	// highWater is the highest head seen; metAt is when a healthy member
	// last stood at it (unix nanoseconds).
	highWater atomic.Uint64
	metAt     atomic.Int64

	cancel context.CancelFunc
	wg     sync.WaitGroup

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

// pick chooses among untried healthy members at the head, in the best
// priority tier, by the power of two random choices on expected wait. When
// every such member is out, it tries those that are out rather than none:
// a node taken out by a passing stall may answer, and a dead one fails
// fast, so the call still ends in an answer or in failover.
func (p *Pool) pick(tried []bool) *Member {
	best := p.target()
	if m := p.pickAmong(tried, best, true); m != nil {
		return m
	}
	return p.pickAmong(tried, best, false)
}

func (p *Pool) pickAmong(tried []bool, best uint64, healthy bool) *Member {
	var cands [16]*Member
	list := cands[:0]
	tier := int(^uint(0) >> 1)
	for i, m := range p.members {
		if tried[i] || m.Healthy() != healthy || m.excluded.Load() || (best > m.Head() && best-m.Head() > p.cfg.MaxLag) {
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

// Forward sends one call and returns its answer. Node faults (transport
// errors, 5xx/429, a lagging node's "header not found") are retried on
// another member when the call is idempotent; a write is retried only
// when its bytes never left (connection refused).
func (p *Pool) Forward(ctx context.Context, body []byte, idempotent bool) (*jsonrpc.Response, error) {
	_, resp, _, err := p.forward(ctx, body, idempotent, nil)
	return resp, err
}

// ForwardFrom is Forward that also names the member that answered.
func (p *Pool) ForwardFrom(ctx context.Context, body []byte, idempotent bool) (*jsonrpc.Response, string, error) {
	_, resp, member, err := p.forward(ctx, body, idempotent, nil)
	return resp, member, err
}

// Do implements Upstream for callers that send raw bodies (internal reads
// of one request): the same choice and retries as an idempotent Forward.
func (p *Pool) Do(ctx context.Context, body []byte) ([]byte, error) {
	raw, _, _, err := p.forward(ctx, body, true, nil)
	if err != nil {
		return nil, &Error{Upstream: p.Name(), Err: err}
	}
	return raw, nil
}

// forward is THE retry loop of one call: choice, attempts, retries within
// MaxAttempts and the retry budget. tried, when given, marks members that
// must not be asked (they already failed this call in an upstream batch).
// It returns the raw answer and its decoding.
func (p *Pool) forward(ctx context.Context, body []byte, idempotent bool, tried []bool) ([]byte, *jsonrpc.Response, string, error) {
	// The retry budget is a deadline each attempt honours, not a context of
	// its own: one timer per attempt is enough.
	budget := time.Now().Add(p.cfg.RetryBudget)
	if tried == nil {
		tried = make([]bool, len(p.members))
	}
	var (
		lastErr    error             = ErrPoolUnavailable
		lastAnswer *jsonrpc.Response // a node-fault answer, kept in case no other node answers better
		lastRaw    []byte
		answeredBy string
	)
	for attempt := 0; attempt < p.cfg.MaxAttempts; attempt++ {
		m := p.pick(tried)
		if m == nil {
			break
		}
		tried[p.index(m)] = true
		raw, resp, err := p.try(ctx, budget, m, body)
		if err == nil {
			if idempotent && IsNodeFaultAnswer(resp.Err) {
				lastAnswer, lastRaw, answeredBy = resp, raw, m.Name()
				continue // perhaps a lagging node: ask another one at the head
			}
			return raw, resp, m.Name(), nil
		}
		lastErr = err
		if Expired(ctx) || !time.Now().Before(budget) || (!idempotent && !NotSent(err)) {
			break
		}
	}
	if lastAnswer != nil {
		return lastRaw, lastAnswer, answeredBy, nil // every node says so: it is the answer
	}
	return nil, nil, "", fmt.Errorf("pool %s: %w (last: %w)", p.id, ErrPoolUnavailable, lastErr)
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
	if Expired(ctx) || !time.Now().Before(budget) {
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
