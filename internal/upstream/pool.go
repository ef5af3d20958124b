package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"
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
	// MaxPendingWrites bounds a member's pending broadcast deliveries (0:
	// DefaultMaxPendingWrites); past it a write is not sent to that member
	// and is counted dropped (MemberStatus.WritesDropped).
	MaxPendingWrites int
	// HeadMethod, HeadBlockMethod, ChainIDMethod and TxByHashMethod are
	// the family's methods (familykind.Kind) the pool's own requests are
	// made with (requests.go); one not given is the default family's.
	//
	// HeadMethod is the method that returns the head's number.
	HeadMethod string
	// HeadBlockMethod, when set, is the family's method that returns a
	// block by number (also asked for the finalized block, the gas limit
	// and the genesis block): members are polled for
	// their head block ("latest", without transactions) instead of
	// HeadMethod, so that the pool knows each head's hash and parent and
	// keeps a canonical chain by hash (canon.go).
	HeadBlockMethod string
	// NoNewHeads: the family has no newHeads subscription (Starknet), so
	// a member that can push is still polled for its head (head.go).
	NoNewHeads bool
	// TrackFinalized asks each member for its finalized block number
	// (HeadBlockMethod's "finalized") whenever its head moved, so that
	// answers that can no longer change are known (EVM networks).
	TrackFinalized bool
	// ChainIDMethod, when set, is the method that returns a member's chain
	// id: each member is
	// checked to be on the pool's chain before it serves (chaincheck.go),
	// unless Check is set. NumericChainID: the id is a quantity, compared
	// as a number (EVM); else as its lowercased text (a Starknet felt).
	// ChainID is the chain id members must be on (NumericChainID; 0: the
	// first member's). NormalizeChainID, when set, is the family's rule
	// for comparing answers (it replaces the numeric/text rule above).
	ChainIDMethod    string
	NumericChainID   bool
	ChainID          uint64
	NormalizeChainID func(answer string) (string, error)
	// TxByHashMethod answers a transaction by its hash (broadcast.go).
	TxByHashMethod string
	// Check, when set, vets a member before it serves: at start and each
	// time it comes back after being out (e.g. that it is on the
	// network's chain). An error keeps the member out, never chosen, with
	// the error as its reason, until a later check passes.
	Check func(ctx context.Context, m *Member) error
	// Verify, when set, checks a member's answer (its result) to a call
	// with a rule before it leaves: an error quarantines the member and
	// the call is tried on another (verify.go; the family's checks,
	// internal/verify for EVM networks). An error that names its check
	// implements FailedCheck.
	Verify func(c Call, result json.RawMessage) error
	// VerifyMore, when set, checks an answer that passed Verify against
	// what its member answers to more calls (ask sends one to it; the
	// receipts root, verifymore.go): an error that names its check
	// quarantines the member as Verify's does; any other (the member could
	// not be asked) lets the answer go unconfirmed.
	VerifyMore func(ctx context.Context, c Call, result json.RawMessage, ask Ask) error
	// Quarantine is how long a member whose answer failed Verify stays
	// out of service before it is probed back.
	Quarantine time.Duration
	// MethodRecheck is how long a member that answered -32601 to a
	// method gets no more calls of it (methods.go).
	MethodRecheck time.Duration
	// StateProbeMethod and LogsProbeMethod are the family's cheap reads
	// at a block of its state (params: an address and the block) and of
	// its receipts (params: the block), with which members' floors are
	// probed (floorprobe.go); "" leaves the kind unprobed. FloorProbe is
	// how often each member's floors are probed again (default 5m).
	StateProbeMethod, LogsProbeMethod string
	FloorProbe                        time.Duration
	// Hedge tunes hedged reads (hedge.go).
	Hedge HedgeConfig
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
	if c.Quarantine <= 0 {
		c.Quarantine = DefaultQuarantine
	}
	if c.MethodRecheck <= 0 {
		c.MethodRecheck = 5 * time.Minute
	}
	if c.FloorProbe <= 0 {
		c.FloorProbe = DefaultFloorProbe
	}
	return c
}

// MemberConfig describes one member to add to a pool.
type MemberConfig struct {
	Upstream Upstream
	// Name is the operator's name for the member (its upstream's own
	// name when empty): what its status, logs, metrics and errors say.
	Name     string
	Weight   int
	Priority int
	// BatchSize is the member's upstream batch size (0: DefaultBatchSize;
	// 1: no batches).
	BatchSize int
	// StateFrom and LogsFrom are the operator's word on the earliest block
	// the member serves state and history (bodies, receipts, logs) for;
	// a kind not set is probed (floor.go).
	StateFrom, LogsFrom Floor
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
	// epoch moves at each reorganisation and peer claim (Epoch).
	epoch atomic.Uint64

	// started: Start ran, so heads are tracked and answers may raise them.
	started atomic.Bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// changeCh is closed at the next change of health or head (follow.go).
	changeMu sync.Mutex
	changeCh chan struct{}
	pokeCh   chan struct{} // closed at the next peer head above every member's (fleethead.go)
	sharer   sharer        // told of head moves (fleethead.go)

	canon *canon // the canonical chain by hash (canon.go)
	// tagMarks: per finality tag, the highest block given for it (finality.go).
	tagMarks   [tagCount]atomic.Uint64
	gas        gasLimit    // the head block's gas limit (gaslimit.go)
	chainCheck *chainCheck // members' chain ids (chaincheck.go); nil: not checked
	req        requests    // the bodies of the pool's own calls (requests.go)
	resends    resendBook  // broadcast transactions members missed (resend.go)
	hedges     *hedger     // calls in flight watched for a hedge (hedge.go)
	// OnChange, when set, is told when a member goes out or comes back.
	OnChange func(member string, healthy bool)
	// OnReorg, when set, is told the heights whose blocks left the
	// canonical chain (canon.go), from and to inclusive: called on the
	// goroutine that saw the report, outside every lock of the pool.
	OnReorg func(from, to uint64)
	// OnVerifyFailed, when set, is told of each answer of a member that
	// failed verification, with the check that failed (verify.go).
	OnVerifyFailed func(member, check string)
	// OnFloor, when set, is told of each move of a member's floor of kind
	// "state" or "logs" (floor.go); OnFloorRefused of each call answered
	// without being sent because no member serves its block.
	OnFloor        func(member, kind string, from uint64)
	OnFloorRefused func(kind string)
	// OnHedgeSent and OnHedgeWon, when set, are told of each hedge sent
	// to a member and of each that answered first (hedge.go).
	OnHedgeSent, OnHedgeWon func(member string)
	// Observer, when set, sees every attempt of Send (observe.go).
	Observer Observer
}

// DefaultQuarantine is how long a member whose answer failed
// verification stays out (PoolConfig.Quarantine).
const DefaultQuarantine = time.Minute

// ErrPoolUnavailable means no member could answer.
var ErrPoolUnavailable = errors.New("no upstream could answer")

// NewPool builds a pool; Start begins head tracking.
func NewPool(name string, cfg PoolConfig, members ...MemberConfig) *Pool {
	p := &Pool{id: name, cfg: cfg.withDefaults(), req: newRequests(cfg)}
	for _, mc := range members {
		p.members = append(p.members, newMember(mc))
	}
	p.canon = newCanon(len(p.members))
	p.hedges = newHedger(p)
	if p.cfg.Check == nil && p.cfg.ChainIDMethod != "" && len(members) > 0 {
		p.chainCheck = newChainCheck(name, p.cfg, p.req, p.members[0])
		p.cfg.Check = p.chainCheck.check
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

// BestHead is the highest head among healthy members on the canonical
// chain (canon.go).
func (p *Pool) BestHead() uint64 {
	var best uint64
	for _, m := range p.members {
		if m.Healthy() && !m.offBranch.Load() && m.Head() > best {
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
	now := nowNano()
	if best >= hw {
		if best > hw && p.highWater.CompareAndSwap(hw, best) {
			p.headMoved(best, false)
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

func nowNano() int64 { return time.Now().UnixNano() }

// Status reports every member's state.
func (p *Pool) Status() []MemberStatus {
	best, watched := p.BestHead(), p.hedges.watched.Load()
	out := make([]MemberStatus, len(p.members))
	for i, m := range p.members {
		out[i] = m.status(best, watched)
	}
	return out
}

// Head is the head the pool serves from: the highest head of a member in
// service, or the higher head seen within LagMemory (see target).
func (p *Pool) Head() uint64 { return p.target() }

func (p *Pool) changed(m *Member, healthy bool) {
	p.signal()
	if !healthy {
		p.hedges.memberOut(m) // hedge.go: its calls in flight go to another member
	}
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
