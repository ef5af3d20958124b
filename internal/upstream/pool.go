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
	// OnChange, when set, is told when a member goes out or comes back.
	OnChange func(member string, healthy bool)
}

// ErrPoolUnavailable means no member could answer.
var ErrPoolUnavailable = errors.New("no upstream could answer")

// NewPool builds a pool; Start begins head tracking.
func NewPool(name string, cfg PoolConfig, members ...MemberConfig) *Pool {
	p := &Pool{id: name, cfg: cfg.withDefaults()}
	for _, mc := range members {
		p.members = append(p.members, newMember(mc.Upstream, mc.Weight, mc.Priority))
	}
	return p
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
	resp, _, err := p.ForwardFrom(ctx, body, idempotent)
	return resp, err
}

// ForwardFrom is Forward that also names the member that answered.
func (p *Pool) ForwardFrom(ctx context.Context, body []byte, idempotent bool) (*jsonrpc.Response, string, error) {
	// The retry budget is a deadline each attempt honours, not a context of
	// its own: one timer per attempt is enough.
	budget := time.Now().Add(p.cfg.RetryBudget)
	tried := make([]bool, len(p.members))
	var (
		lastErr    error             = ErrPoolUnavailable
		lastAnswer *jsonrpc.Response // a node-fault answer, kept in case no other node answers better
		answeredBy string
	)
	for attempt := 0; attempt < p.cfg.MaxAttempts; attempt++ {
		m := p.pick(tried)
		if m == nil {
			break
		}
		tried[p.index(m)] = true
		resp, err := p.try(ctx, budget, m, body)
		if err == nil {
			if idempotent && IsNodeFaultAnswer(resp.Err) {
				lastAnswer, answeredBy = resp, m.Name()
				continue // perhaps a lagging node: ask another one at the head
			}
			return resp, m.Name(), nil
		}
		lastErr = err
		if Expired(ctx) || !time.Now().Before(budget) || (!idempotent && !NotSent(err)) {
			break
		}
	}
	if lastAnswer != nil {
		return lastAnswer, answeredBy, nil // every node says so: it is the answer
	}
	return nil, "", fmt.Errorf("pool %s: %w (last: %w)", p.id, ErrPoolUnavailable, lastErr)
}

// try makes one attempt on m, within the attempt timeout and the call's
// retry budget, and keeps m's health up to date.
func (p *Pool) try(ctx context.Context, budget time.Time, m *Member, body []byte) (*jsonrpc.Response, error) {
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
		var resp jsonrpc.Response
		if _, resp, err = jsonrpc.DecodeResponse(out); err != nil {
			err = &Error{Upstream: m.Name(), Err: err}
		} else {
			m.observe(time.Since(start))
			return &resp, nil
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
	if p.OnChange != nil {
		p.OnChange(m.Name(), healthy)
	}
}

// Do implements Upstream for callers that send raw bodies (internal reads):
// it uses the pool's choice and retries as an idempotent call.
func (p *Pool) Do(ctx context.Context, body []byte) ([]byte, error) {
	tried := make([]bool, len(p.members))
	var lastErr error = ErrPoolUnavailable
	for attempt := 0; attempt < p.cfg.MaxAttempts; attempt++ {
		m := p.pick(tried)
		if m == nil {
			break
		}
		tried[p.index(m)] = true
		actx, cancel := context.WithTimeout(ctx, p.cfg.AttemptTimeout)
		out, err := m.Upstream.Do(actx, body)
		cancel()
		if err == nil {
			return out, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
		if m.fault(err, p.cfg.FailThreshold) {
			p.changed(m, false)
		}
	}
	return nil, &Error{Upstream: p.Name(), Err: fmt.Errorf("%w (last: %w)", ErrPoolUnavailable, lastErr)}
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
