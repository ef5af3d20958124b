package upstream

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
)

// Member is one upstream of a pool with what the pool knows about it.
type Member struct {
	Upstream Upstream
	Weight   int // relative share among equals (default 1)
	Priority int // lower is preferred; higher tiers serve only when lower ones cannot
	// BatchSize is how many calls go to the member in one upstream batch
	// (DefaultBatchSize when not configured; 1: the member takes no batches).
	BatchSize int

	name string // MemberConfig.Name, else the upstream's
	head atomic.Uint64
	// askHead wakes the member's head tracker to poll at once (a head
	// subscription was just made: head.go).
	askHead chan struct{}
	// offBranch: the member's last head is not on the pool's canonical
	// chain (canon.go); it is not chosen until it is.
	offBranch atomic.Bool
	// reports counts the heads by hash the member reported (canon.go).
	reports atomic.Uint64
	// reread is a read of its head again under way (canonjudge.go).
	reread reread
	// lower counts the member's consecutive reports of a head below head
	// (see Pool.report).
	lower atomic.Int32
	// reported is the highest head the member reported itself (a poll, a
	// push) since its head was last lowered: a head above it was only
	// learned from an answer (see Pool.report).
	reported atomic.Uint64
	// finalized is the member's finalized block number; finalizedAt the
	// head at which it was last asked.
	finalized   atomic.Uint64
	finalizedAt atomic.Uint64
	// finalityOff: its finalized block is not on the canonical chain
	// (finality.go); it is kept out of service until it is.
	finalityOff atomic.Bool
	// forkAhead: the member is on a fork of its own (forkahead.go); it
	// is kept out of service until a head of its own agrees.
	forkAhead atomic.Bool
	// chain is the chain the member serves ("<chain id>/<genesis hash>",
	// chain.go), nil until learned; forgotten when the member goes out of
	// service, learned again when it comes back.
	chain    atomic.Pointer[string]
	healthy  atomic.Bool
	inflight atomic.Int64
	// writes are its broadcast deliveries (broadcast_bound.go).
	writes pendingWrites
	// latency is an exponentially weighted moving average, in nanoseconds.
	latency atomic.Int64
	// held is how often its calls were still unanswered at their hedge
	// delay and hedged (held.go).
	held heldRate
	// checked: PoolConfig.Check passed since the member last came back;
	// excluded: it failed, and the pool never chooses the member.
	checked, excluded atomic.Bool
	// quarantinedUntil: an answer of the member failed verification; it
	// is not probed back before this time (unix nanoseconds; verify.go).
	// verifyFailures counts its answers that failed.
	quarantinedUntil atomic.Int64
	verifyFailures   atomic.Uint64
	// lacked are the methods the member answered -32601 (methods.go).
	lacked lackedMethods
	// floors are the earliest blocks it serves state and history for (floor.go).
	floors floors

	mu        sync.Mutex
	fails     int       // consecutive node faults
	lastErr   string    // last node fault, for status
	downSince time.Time // zero while healthy
	lastSeen  time.Time // last successful answer or head
}

// Unbatched is implemented by an Upstream that answers one call per
// request (it reads the call to decide how to answer it): its member never
// gets upstream batches, whatever the configured batch size.
type Unbatched interface {
	Unbatched()
}

func newMember(mc MemberConfig) *Member {
	m := &Member{Upstream: mc.Upstream, name: mc.Name, Weight: mc.Weight, Priority: mc.Priority, BatchSize: mc.BatchSize,
		askHead: make(chan struct{}, 1)}
	if m.name == "" && mc.Upstream != nil {
		m.name = mc.Upstream.Name()
	}
	if m.Weight <= 0 {
		m.Weight = 1
	}
	if m.BatchSize <= 0 {
		m.BatchSize = DefaultBatchSize
	}
	if _, ok := mc.Upstream.(Unbatched); ok {
		m.BatchSize = 1
	}
	m.floors.learned = make(chan struct{}, 1)
	m.floors.configure(methods.NeedsState, mc.StateFrom)
	m.floors.configure(methods.NeedsHistory, mc.LogsFrom)
	m.healthy.Store(true)
	return m
}

// Name is the member's name: the operator's (MemberConfig.Name), else
// its upstream's.
func (m *Member) Name() string { return m.name }

// Healthy reports whether the pool may choose the member.
func (m *Member) Healthy() bool { return m.healthy.Load() }

// Head is the last block number the member reported.
func (m *Member) Head() uint64 { return m.head.Load() }

// observe records a successful exchange.
func (m *Member) observe(d time.Duration) {
	const alpha = 0.2
	old := m.latency.Load()
	next := int64(d)
	if old != 0 {
		next = int64(alpha*float64(d) + (1-alpha)*float64(old))
	}
	m.latency.Store(next)
	m.mu.Lock()
	m.fails = 0
	m.lastSeen = time.Now()
	m.mu.Unlock()
}

// fault records a node fault and takes the member out after threshold
// consecutive faults. It returns true when this call took it out.
func (m *Member) fault(err error, threshold int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fails++
	m.lastErr = err.Error()
	if m.fails >= threshold && m.healthy.Load() {
		m.healthy.Store(false)
		m.checked.Store(false) // checked again when it comes back
		m.chain.Store(nil)     // and its chain learned again
		m.downSince = time.Now()
		return true
	}
	return false
}

// exclude keeps the member out of service for a reason PoolConfig.Check
// gave. It returns true when this call took it out.
func (m *Member) exclude(err error) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastErr = err.Error()
	m.excluded.Store(true)
	m.chain.Store(nil)
	if m.healthy.Swap(false) {
		m.downSince = time.Now()
		return true
	}
	return false
}

// recover puts the member back in service.
func (m *Member) recover() {
	m.mu.Lock()
	m.fails = 0
	m.downSince = time.Time{}
	m.lastSeen = time.Now()
	m.lastErr = ""
	m.mu.Unlock()
	m.excluded.Store(false)
	m.healthy.Store(true)
}

// score orders candidates: expected wait, lower is better.
func (m *Member) score() float64 {
	lat := float64(m.latency.Load())
	if lat == 0 {
		lat = float64(time.Millisecond) // unknown: assume fast, so new members get traffic
	}
	return lat * float64(m.inflight.Load()+1) / float64(m.Weight)
}

// MemberStatus is a member's state for operators.
type MemberStatus struct {
	Name      string    `json:"name"`
	Healthy   bool      `json:"healthy"`
	Head      uint64    `json:"head"`
	Lag       uint64    `json:"lag"`
	LatencyMS float64   `json:"latency_ms"`
	InFlight  int64     `json:"in_flight"`
	Weight    int       `json:"weight"`
	Priority  int       `json:"priority"`
	Fails     int       `json:"consecutive_failures"`
	LastError string    `json:"last_error,omitempty"`
	DownSince time.Time `json:"down_since,omitzero"`
	// WritesPending are the broadcast writes being delivered to the
	// member; WritesDropped those not sent to it because it had
	// PoolConfig.MaxPendingWrites pending.
	WritesPending int64 `json:"writes_pending"`
	WritesDropped int64 `json:"writes_dropped"`
	// VerifyFailures counts the member's answers that failed
	// verification; QuarantinedUntil is when its quarantine ends.
	VerifyFailures   uint64    `json:"verify_failures"`
	QuarantinedUntil time.Time `json:"quarantined_until,omitzero"`
	// UnavailableMethods are the methods it answered -32601, until their
	// re-probe (methods.go).
	UnavailableMethods []string `json:"unavailable_methods,omitempty"`
	// StateFrom and LogsFrom are the earliest blocks it serves state and
	// history for, as configured, probed or learned (floor.go).
	StateFrom uint64 `json:"state_from"`
	LogsFrom  uint64 `json:"logs_from"`
	// HeldRate is its decaying rate of attempts still unanswered at their
	// hedge delay and hedged (held.go), 0 to 1: what the choice weighs.
	HeldRate float64 `json:"held_rate"`
}

// status is m's state; best is the pool's best head, watched the pool's
// count of watched calls (held.go's clock).
func (m *Member) status(best uint64, watched uint32) MemberStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	head := m.head.Load()
	lag := uint64(0)
	if best > head {
		lag = best - head
	}
	st := MemberStatus{
		Name: m.Name(), Healthy: m.healthy.Load(), Head: head, Lag: lag,
		LatencyMS: math.Round(float64(m.latency.Load())/1e4) / 100, InFlight: m.inflight.Load(),
		Weight: m.Weight, Priority: m.Priority, Fails: m.fails, LastError: m.lastErr, DownSince: m.downSince,
		WritesPending: m.writes.pending.Load(), WritesDropped: m.writes.dropped.Load(),
		VerifyFailures: m.verifyFailures.Load(), UnavailableMethods: m.lacked.list(time.Now()),
		StateFrom: m.floor(methods.NeedsState), LogsFrom: m.floor(methods.NeedsHistory),
		HeldRate: math.Round(m.held.at(watched)*1e4) / 1e4,
	}
	if until := m.quarantinedUntil.Load(); until != 0 {
		st.QuarantinedUntil = time.Unix(0, until).UTC()
	}
	return st
}
