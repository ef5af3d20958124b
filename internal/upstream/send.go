package upstream

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/nodegate/nodegate/internal/deadline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Option changes how Send sends one call.
type Option struct {
	avoid *Member
}

// Avoid keeps m from being asked (it already failed the call in an
// upstream batch), unless it is the pool's only member.
func Avoid(m *Member) Option { return Option{avoid: m} }

// Send sends one call and returns its answer and the member that gave it.
// The call goes only to members that have the block it names (or are at
// the pool's head), waiting a bounded time for one; node faults
// (transport errors, 5xx/429, "header not found") are retried on another
// member when the call is idempotent, and a lagging member's answer (a
// null, "beyond current head") once on a member ahead of it, as is an
// answer naming a block off the canonical chain (answerblock.go) or a
// safe/finalized block below the one already given (finality.go); a write is
// retried only when its bytes never left (connection refused), and a
// signed transaction goes to every member (broadcast.go). An answer that
// names a block the chain left before the answer went on is asked again,
// once (canonlate.go). A call without a rule is answered at the head and
// its answer taken as it is.
func (p *Pool) Send(ctx context.Context, c Call, opts ...Option) (*jsonrpc.Response, string, error) {
	epoch := p.Epoch()
	_, resp, member, err := p.forward(ctx, c, p.triedAt(opts))
	if p.release(ctx, epoch) && err == nil && c.Idempotent && p.leftUnder(kindOf(c.Rule), c.Params, resp) {
		// canonlate.go: the chain reorganised under the answer; asked
		// again on the chain as it is now.
		_, resp, member, err = p.forward(ctx, c, p.triedAt(opts))
		p.awaitShared(ctx)
	}
	return resp, member, err
}

// triedAt is the members a call sent with opts must not ask (nil: none).
func (p *Pool) triedAt(opts []Option) []bool {
	var tried []bool
	for _, o := range opts {
		if o.avoid != nil {
			tried = p.triedOnly(o.avoid)
		}
	}
	return tried
}

// Do implements Upstream for callers that send raw bodies (internal reads
// of one request): an idempotent Send without a rule.
func (p *Pool) Do(ctx context.Context, body []byte) ([]byte, error) {
	raw, _, _, err := p.forward(ctx, Call{Body: body, Idempotent: true}, nil)
	if err != nil {
		return nil, &Error{Upstream: p.Name(), Err: err}
	}
	return raw, nil
}

// retry is what chooses the member of a call's next try: the members
// already asked, the block the call needs, a lag retry's floor and the
// bounds of its waits. (The answer kept in case no other member answers
// better stays in forward: held here, escape analysis would move every
// call's tried list to the heap.)
type retry struct {
	tried []bool
	ref   blockRef
	// above: a lag retry, whose member must be above this head (0: none).
	above uint64
	// future: ref is far beyond every head (future.go): no wait for a
	// member to reach it, and the one answer is the answer.
	future bool
	// reorgs: the chain's count of reorganisations when the attempt was
	// sent (canonstale.go).
	reorgs uint64
	// budget ends all tries; waitUntil ends the wait for a member to reach
	// ref (set at the first wait).
	budget, waitUntil time.Time
}

// forward is THE retry loop of one call: choice, attempts, retries within
// MaxAttempts and the retry budget. tried, when given, marks members that
// must not be asked (they already failed this call in an upstream batch).
// It returns the raw answer and its decoding.
func (p *Pool) forward(ctx context.Context, c Call, tried []bool) ([]byte, *jsonrpc.Response, string, error) {
	k := kindOf(c.Rule)
	if k.Write {
		if refused := p.checkRawTx(c.Params); refused != nil { // rawtx.go: never sent anywhere
			resp := &jsonrpc.Response{Err: refused}
			return jsonrpc.AppendResponse(nil, json.RawMessage("1"), resp), resp, "", nil
		}
	}
	if k.Write && !c.Idempotent && !p.cfg.NoBroadcast && len(p.members) > 1 {
		return p.broadcast(ctx, c)
	}
	if tried == nil {
		tried = make([]bool, len(p.members))
	}
	// The retry budget is a deadline each attempt honours, not a context of
	// its own: one timer per attempt is enough.
	// (budget is also kept apart from r: passed to try, it would move r
	// to the heap.)
	budget := time.Now().Add(p.cfg.RetryBudget)
	r := retry{tried: tried, ref: k.blockOf(c.Params), budget: budget}
	r.future = p.beyondHeads(r.ref) // future.go: one attempt, its answer is the answer
	if c.Rule != nil {
		p.skipLacking(c.Rule.Name, r.tried) // methods.go: members that lack the method are not asked
	}
	old := k.oldBlockOf(c.Params, r.ref)
	if refused := p.skipBelowFloor(old, r.tried); refused != nil {
		return answerOf(refused) // floor.go: no member holds the block: never sent
	}
	p.awaitClaimBefore(ctx, k, r.ref, budget) // canonbelow.go: a peer's claim may move the blocks it names
	var t tries
	for attempt := 0; attempt < p.cfg.MaxAttempts; attempt++ {
		m := p.choose(ctx, &r)
		if m == nil {
			break
		}
		r.tried[p.index(m)] = true
		sentAt := m.Head()
		r.reorgs = p.reorgsSeen()
		// hedge.go: another member is asked too when m is late, hangs or goes out
		m, raw, resp, err := p.tryHedged(ctx, budget, m, c, r.tried, p.floor(r.ref, r.above))
		if err == nil {
			switch p.judge(ctx, c, k, &r, old, &t, m, raw, resp, min(sentAt, m.Head())) {
			case answerIsTheCall:
				return raw, resp, m.Name(), nil
			case askedNoTry:
				attempt-- // each member is asked once: its word on its floor is not a try
			case stopAsking:
				attempt = p.cfg.MaxAttempts
			}
			if t.refused != nil {
				return answerOf(t.refused)
			}
			continue
		}
		t.lastErr = err
		if deadline.Expired(ctx) || !time.Now().Before(budget) || (!c.Idempotent && !NotSent(err)) {
			break
		}
	}
	return t.end(p.id)
}

// lagBelow reports whether resp, the answer to a call of kind k naming
// ref from a member whose head was sentAt, may only mean that the member
// has not what the call asks for while another member may: a lag answer
// (a null from a lookup, "beyond current head"). It returns the head a
// member asked again must be above: the answering member's, or — when
// the call names a block the member was known to have (at or below
// sentAt) — the block's less one: the member went back since it last
// said where it is (a rewind to a shorter chain whose head it has not
// reported yet), and a member that has the block is asked; a real null
// (an index beyond a block's transactions) costs one more try.
func (p *Pool) lagBelow(k kind, ref blockRef, resp *jsonrpc.Response, sentAt uint64) (uint64, bool) {
	if !k.lagAnswer(resp) {
		return 0, false
	}
	if ref.named && ref.number <= sentAt {
		return max(ref.number, 1) - 1, true
	}
	return sentAt, true
}

// try makes one attempt of a single call on m and decodes its answer.
// h is the attempt's part in a hedged call (hedge.go; zero: none).
func (p *Pool) try(ctx context.Context, budget time.Time, m *Member, body []byte, h hedgeRole) ([]byte, *jsonrpc.Response, error) {
	actx, start := p.startAttempt(ctx, m)
	resp := new(jsonrpc.Response)
	out, err := p.attempt(actx, budget, m, body, func(out []byte) (err error) {
		_, *resp, err = jsonrpc.DecodeResponse(out)
		return err
	}, h)
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
// h is its part in a hedged call: the attempt that did not answer first
// (cancelled, or answering after the other) ends errHedgeLost, neither a
// fault nor a latency of m.
func (p *Pool) attempt(ctx context.Context, budget time.Time, m *Member, body []byte, check func([]byte) error, h hedgeRole) ([]byte, error) {
	dl := time.Now().Add(p.cfg.AttemptTimeout)
	if budget.Before(dl) {
		dl = budget
	}
	actx, cancel := context.WithDeadline(ctx, dl)
	defer cancel()
	h.arm(cancel)
	m.inflight.Add(1)
	start := time.Now()
	out, err := m.Upstream.Do(actx, body)
	m.inflight.Add(-1)
	if err == nil {
		if err = check(out); err != nil {
			err = &Error{Upstream: m.Name(), Err: err}
		}
	}
	if !h.claim(err == nil) {
		return nil, errHedgeLost
	}
	if err == nil {
		d := time.Since(start)
		m.observe(d)
		h.observe(d)
		h.answered()
		return out, nil
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
