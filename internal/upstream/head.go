package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// HeadSource is implemented by upstreams that push new heads (the embedded
// node); a member that takes subscriptions (a ws(s):// node) is followed by
// its newHeads subscription (newHeadsSource). Every member is also polled
// at HeadInterval: that is its health check, and the only head source of
// an http(s):// member.
type HeadSource interface {
	SubscribeHeads(ctx context.Context, fn func(number uint64)) error
}

// Start polls every member's head once (so the first calls already choose
// well), then tracks heads and health in the background until Close.
func (p *Pool) Start(ctx context.Context) {
	bg, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.started.Store(true)
	done := make(chan struct{}, len(p.members))
	for _, m := range p.members {
		go func() {
			p.poll(ctx, m)
			done <- struct{}{}
		}()
	}
	for range p.members {
		<-done
	}
	for _, m := range p.members {
		if hs := p.headSourceOf(m); hs != nil {
			p.wg.Go(func() { p.subscribe(bg, m, hs) })
		}
		p.wg.Go(func() { p.track(bg, m) })
		p.wg.Go(func() { p.probeFloors(bg, m) }) // floorprobe.go
	}
	p.wg.Go(func() { p.resendLoop(bg) })
}

// track polls m: at HeadInterval while healthy, at ProbeInterval while out.
func (p *Pool) track(ctx context.Context, m *Member) {
	for {
		wait := p.cfg.HeadInterval
		if !m.Healthy() {
			wait = p.cfg.ProbeInterval
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		case <-p.poked():
		case <-m.askHead:
		}
		p.poll(ctx, m)
	}
}

// poll asks m for its head; success brings it back, a failure counts as a fault.
func (p *Pool) poll(ctx context.Context, m *Member) {
	if p.quarantined(m) {
		return // verify.go: probed back when its quarantine is over
	}
	pctx, cancel := context.WithTimeout(ctx, min(p.cfg.AttemptTimeout, 5*time.Second))
	defer cancel()
	b, err := p.pollHead(pctx, m)
	n := b.Number
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		if m.fault(err, p.cfg.FailThreshold) {
			slog.Warn("upstream out of service", "pool", p.id, "upstream", m.Name(), "err", err)
			p.changed(m, false)
		}
		return
	}
	if p.cfg.Check != nil && !m.checked.Load() {
		if err := p.cfg.Check(pctx, m); err != nil {
			if ctx.Err() != nil {
				return
			}
			if m.exclude(err) {
				slog.Warn("upstream kept out of service", "pool", p.id, "upstream", m.Name(), "reason", err)
				p.changed(m, false)
			}
			return
		}
		m.checked.Store(true)
	}
	p.reportBlock(m, b)
	if m.forkAhead.Load() {
		return // forkahead.go: out until a head of its own agrees
	}
	if p.cfg.TrackFinalized && m.chain.Load() == nil {
		if c, err := p.chainOf(pctx, m); err == nil {
			m.chain.Store(&c)
		} else {
			slog.Debug("chain identity unknown", "pool", p.id, "upstream", m.Name(), "err", err)
		}
	}
	if p.cfg.TrackFinalized && (m.finalizedAt.Load() != n || m.finalityOff.Load()) {
		if f, h, err := p.finalizedOf(pctx, m); err == nil {
			if off := p.finalizedDisagrees(b, f, h); off != nil {
				// finality.go: out of service until its finalized block agrees.
				m.finalityOff.Store(true)
				if m.exclude(off) {
					slog.Warn("upstream out of service: its finalized block is not on the canonical chain", "pool", p.id, "upstream", m.Name(), "height", f, "hash", h.Hex(), "reason", off)
					p.changed(m, false)
				}
				return
			}
			m.finalityOff.Store(false)
			m.finalized.Store(f)
			m.finalizedAt.Store(n)
		} else {
			slog.Debug("finalized block unknown", "pool", p.id, "upstream", m.Name(), "err", err)
		}
	}
	if !m.Healthy() {
		m.recover()
		slog.Info("upstream back in service", "pool", p.id, "upstream", m.Name(), "head", n)
		p.changed(m, true)
	}
}

// report records a head m reported itself (a poll, a push). Heads only
// rise: a lower number may be a poll answered before an answer of m
// proved a higher head, or a push read late, so m's head is lowered only
// when m reports a lower head twice in a row (its chain was reset, or
// reorganized to a shorter one); a head m had only been credited with by
// an answer then no longer holds the pool's mark (proof.go). A new head
// wakes those waiting on Changed.
func (p *Pool) report(m *Member, n uint64) {
	if n >= m.head.Load() {
		m.lower.Store(0)
		storeMax(&m.reported, n)
		p.raise(m, n)
		return
	}
	if m.lower.Add(1) >= 2 {
		m.lower.Store(0)
		was := m.head.Swap(n)
		if was > m.reported.Swap(n) {
			p.contradicted(was)
		}
		p.signal()
	}
}

// storeMax raises a to n when n is higher, reporting whether it rose.
func storeMax(a *atomic.Uint64, n uint64) bool {
	for {
		v := a.Load()
		if n <= v {
			return false
		}
		if a.CompareAndSwap(v, n) {
			return true
		}
	}
}

// raise records that m has block n: its head is at least n. It reports
// whether m's head rose.
func (p *Pool) raise(m *Member, n uint64) bool {
	if storeMax(&m.head, n) {
		p.signal()
		return true
	}
	return false
}

// learn raises m's head to the mined block its answer to a call of kind k
// with params proves it has (a head number, a block, a transaction in a
// block: proof.go), before the answer goes on: a client given block N from
// m never has a later call sent where N is unknown. reorgs is the chain's
// count of reorganisations when the call was sent: word the chain made
// stale since is not taken (canonstale.go). An unstarted pool
// tracks no heads and learns nothing.
func (p *Pool) learn(m *Member, k kind, params json.RawMessage, resp *jsonrpc.Response, reorgs uint64) {
	if !p.started.Load() {
		return
	}
	if n, ok := provenHeadOf(k, params, resp); ok {
		if p.raiseProven(m, n, reorgs) {
			return // stale: the chain rewound below n since the call was sent
		}
		if n > p.highWater.Load() {
			// Also when m's head was raised already (a read of its head
			// again, canonjudge.go): the fleet learns of a head before
			// a client is given it.
			p.shareRaise()
		}
	}
}

// SawHead records that member m delivered head n with hash (a
// subscription hub's notification; zero: a family without hashes): m's
// head is at least n before any client sees it, unless the block left the
// chain (a notification read late, after the chain rewound past it:
// canonstale.go).
func (p *Pool) SawHead(m *Member, n uint64, hash common.Hash) {
	if p.started.Load() {
		p.raiseSeen(m, headBlock{Number: n, Hash: hash})
	}
}

func (p *Pool) headOf(ctx context.Context, m *Member) (uint64, error) {
	out, err := m.Upstream.Do(ctx, p.req.head)
	if err != nil {
		return 0, err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return 0, &Error{Upstream: m.Name(), Err: err}
	}
	if resp.Err != nil {
		return 0, &Error{Upstream: m.Name(), Err: errors.New(resp.Err.Message)}
	}
	n, err := ParseBlockNumber(resp.Result)
	if err != nil {
		return 0, &Error{Upstream: m.Name(), Err: err}
	}
	return n, nil
}

// askBlock sends a block request (requests.go) with do and decodes
// the block into dst; what names the block in errors. A node fault is
// returned as do returned it.
func askBlock(ctx context.Context, do func(context.Context, []byte) ([]byte, error), req []byte, what string, dst any) error {
	out, err := do(ctx, req)
	if err != nil {
		return err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if resp.Err != nil {
		return fmt.Errorf("%s: %w", what, resp.Err)
	}
	if err := json.Unmarshal(resp.Result, dst); err != nil {
		return fmt.Errorf("%s: %.100s: %w", what, resp.Result, err)
	}
	return nil
}

// ParseBlockNumber reads a block number given as a hex quantity string
// (EVM) or a plain JSON number (Starknet).
func ParseBlockNumber(raw json.RawMessage) (uint64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("block number: %w", err)
		}
		return hexutil.DecodeUint64(s)
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("block number %s: %w", raw, err)
	}
	return n, nil
}

// headSourceOf is what pushes m's heads: its newHeads subscription when
// the family has one (PoolConfig.NoNewHeads) and the pool keeps the
// canonical chain by hash (headers carry their hash: the chain, and what
// subscriptions make of it, follow pushes rather than polls), else its
// own HeadSource (numbers only: the embedded node's), else its newHeads
// subscription; nil when m is only polled.
func (p *Pool) headSourceOf(m *Member) HeadSource {
	s, subscribes := SubscriberOf(m.Upstream)
	subscribes = subscribes && !p.cfg.NoNewHeads
	own := newHeadsSource{s: s, subscribed: m.pollSoon}
	if subscribes && p.cfg.HeadBlockMethod != "" {
		return own
	}
	if hs, ok := m.Upstream.(HeadSource); ok {
		return hs
	}
	if subscribes {
		return own
	}
	return nil
}

// newHeadsSource follows a member's heads by its newHeads subscription.
// Once a subscription is made (also again, after a drop) it calls
// subscribed, which asks the member's head at once: a block made between
// the last poll and the subscription is not left unseen until the next
// block (a dev chain's next block may be an hour away).
type newHeadsSource struct {
	s          Subscriber
	subscribed func()
}

// pollSoon wakes m's head tracker to poll m now (at most one wake-up
// waits).
func (m *Member) pollSoon() {
	select {
	case m.askHead <- struct{}{}:
	default:
	}
}

var newHeadsParams = json.RawMessage(`["newHeads"]`)

// newHeadFacts: a newHeads notification is a header, its number the head.
var newHeadFacts = methods.Rule{Proves: "number"}

// SubscribeHeads implements HeadSource.
func (h newHeadsSource) SubscribeHeads(ctx context.Context, fn func(number uint64)) error {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	sub, err := h.s.Subscribe(sctx, newHeadsParams)
	cancel()
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	h.subscribed()
	head := kindOf(&newHeadFacts)
	for {
		select {
		case raw := <-sub.C:
			if n, ok := head.provenHead(&jsonrpc.Response{Result: raw}); ok {
				fn(n)
			}
		case <-sub.Done():
			return sub.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// subscribe keeps a push subscription to m's heads, re-subscribing after a drop.
func (p *Pool) subscribe(ctx context.Context, m *Member, hs HeadSource) {
	for ctx.Err() == nil {
		var err error
		if bs, ok := hs.(blockSource); ok && p.cfg.HeadBlockMethod != "" {
			err = bs.SubscribeBlocks(ctx, func(b headBlock) { p.reportBlock(m, b) })
		} else {
			err = hs.SubscribeHeads(ctx, func(n uint64) { p.report(m, n) })
		}
		if ctx.Err() != nil {
			return
		}
		slog.Debug("head subscription ended", "upstream", m.Name(), "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(p.cfg.ProbeInterval):
		}
	}
}
