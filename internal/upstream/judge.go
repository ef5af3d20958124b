package upstream

import (
	"context"
	"fmt"

	"github.com/nodegate/nodegate/jsonrpc"
)

// next is what forward does after judging one member's answer.
type next int

const (
	askAnother      next = iota // ask another member (within MaxAttempts)
	answerIsTheCall             // the answer is the call's
	askedNoTry                  // ask another member; this ask was not a try
	stopAsking                  // ask no other member
)

// tries is what forward keeps across the attempts of one call: the last
// error, the answer kept in case no other member answers better, whether
// a member's answer failed verification, and an answer that ends the
// call without another member (no member holds the block).
type tries struct {
	lastErr      error
	lastAnswer   *jsonrpc.Response
	lastRaw      []byte
	answeredBy   string
	failedVerify bool
	refused      *jsonrpc.Response
}

// keep holds m's answer as the call's in case no other member answers better.
func (t *tries) keep(m *Member, raw []byte, resp *jsonrpc.Response) {
	t.lastAnswer, t.lastRaw, t.answeredBy = resp, raw, m.Name()
}

// end is the call's answer when no member's answer was taken: the last kept
// answer (every node says so), a verification failure, or the pool unavailable.
func (t *tries) end(pool string) ([]byte, *jsonrpc.Response, string, error) {
	if t.lastAnswer != nil {
		return t.lastRaw, t.lastAnswer, t.answeredBy, nil
	}
	if t.failedVerify {
		raw, resp := failedVerification()
		return raw, resp, "", nil
	}
	lastErr := t.lastErr
	if lastErr == nil {
		lastErr = ErrPoolUnavailable
	}
	return nil, nil, "", fmt.Errorf("pool %s: %w (last: %w)", pool, ErrPoolUnavailable, lastErr)
}

// judge decides what forward does with m's answer resp (raw) to c, a call
// of kind k that names old (floors) and whose member's head was sentAt when
// it was sent: the rules of the answer, in order — verification
// (verify.go), the member's floor (floor.go), a method the member lacks
// (methods.go), the canonical chain (canonjudge.go), safe/finalized never
// back (finality.go), node faults and lag answers retried on another member.
func (p *Pool) judge(ctx context.Context, c Call, k kind, r *retry, old oldBlock, t *tries, m *Member, raw []byte, resp *jsonrpc.Response, sentAt uint64) next {
	if p.verifyAnswer(ctx, m, c, resp) != nil { // verify.go: m is quarantined
		t.failedVerify = true
		if !c.Idempotent {
			return stopAsking
		}
		return askAnother
	}
	if again, refused := p.pruned(m, old, resp, r.tried); again { // floor.go: m's floor moved above the block
		t.refused = refused
		return askedNoTry
	}
	if p.lacksMethod(m, c, resp) && p.untriedInService(r.tried) { // methods.go
		t.keep(m, raw, resp)
		return askAnother // a member that has the method may answer it
	}
	if n, lag := p.judgeCanon(ctx, r.budget, k, c.Params, resp, m); lag {
		// canonjudge.go: m is on another branch; a member on the
		// canonical one is asked.
		if c.Idempotent && p.ahead(r.tried, max(n, 1)-1) {
			t.keep(m, raw, resp)
			r.above = max(n, r.above)
			return askAnother
		}
	} else {
		p.learn(m, k, c.Params, resp, r.reorgs)
	}
	if n, ok, behind := p.tagBehind(k, r.ref, resp); behind && c.Idempotent && p.ahead(r.tried, 0) {
		t.keep(m, raw, resp)
		return askAnother // finality.go: safe/finalized behind what was given
	} else if ok {
		p.gaveTag(r.ref.tag, n)
	}
	if r.future {
		return answerIsTheCall
	}
	if c.Idempotent && IsNodeFaultAnswer(resp.Err) {
		t.keep(m, raw, resp)
		return askAnother // perhaps a lagging node: ask another one at the head
	}
	if below, lag := p.lagBelow(k, r.ref, resp, sentAt); lag && c.Idempotent && r.above == 0 && p.ahead(r.tried, below) {
		t.keep(m, raw, resp)
		r.above = below + 1 // once, on a member ahead of this one (or that has the block)
		return askAnother
	}
	return answerIsTheCall
}
