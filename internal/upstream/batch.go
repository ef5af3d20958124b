package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// DefaultBatchSize is how many calls go to a member in one upstream batch
// when its configuration does not say.
const DefaultBatchSize = 100

// BatchCall is one idempotent call of an upstream batch: its method, the
// method's rule (what it says about blocks) and its params.
type BatchCall struct {
	Method string
	Rule   *methods.Rule
	Params json.RawMessage
}

// BatchAnswer is what an upstream batch gave one call. A nil Resp means
// the batch did not answer it (the member takes no batches, failed the
// batch as a whole, left the call out, answered its id twice or with an id
// that is not JSON such as 00, gave a node-fault answer, or an answer
// naming a block off the canonical chain while a member on it can answer,
// or one the chain left before the batch answered: canonlate.go): the
// caller sends it alone, under the usual retry rules, avoiding Failed.
type BatchAnswer struct {
	Resp   *jsonrpc.Response
	Member string
	Failed *Member
}

// errNotBatchAnswer: a member's answer to a batch that is neither an array
// nor one JSON-RPC response.
var errNotBatchAnswer = errors.New("answer to a batch is not json-rpc")

// ForwardBatch sends idempotent calls to members as upstream batches: each
// chunk goes to the member the pool chooses, at most that member's batch
// size calls long, and the answers are matched back to the calls by id.
// Chunks run concurrently. Only idempotent calls may be given: a call the
// batch did not answer is sent again alone.
func (p *Pool) ForwardBatch(ctx context.Context, calls []BatchCall) []BatchAnswer {
	out := make([]BatchAnswer, len(calls))
	epoch := p.Epoch()
	defer func() {
		if p.release(ctx, epoch) { // canonlate.go
			p.dropLeftUnder(calls, out)
		}
	}()
	if p.canon.claimUntil.Load() != 0 {
		// canonbelow.go: a peer's claim may move the blocks the calls name.
		budget := time.Now().Add(p.cfg.RetryBudget)
		for _, c := range calls {
			k := kindOf(c.Rule)
			p.awaitClaimBefore(ctx, k, k.blockOf(c.Params), budget)
		}
	}
	var wg sync.WaitGroup
	for rest := 0; rest < len(calls); {
		m := p.pick(make([]bool, len(p.members)))
		if m == nil || m.BatchSize <= 1 {
			break // no member, or one that takes no batches: every call alone
		}
		n := min(m.BatchSize, len(calls)-rest)
		chunk, answers := calls[rest:rest+n], out[rest:rest+n]
		rest += n
		if n == 1 {
			break // alone is cheaper than a batch of one
		}
		if rest == len(calls) {
			p.sendBatch(ctx, m, chunk, answers)
			break
		}
		wg.Go(func() { p.sendBatch(ctx, m, chunk, answers) })
	}
	wg.Wait()
	return out
}

// batchBufs recycles the request bodies of upstream batches.
var batchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// sendBatch makes one attempt of one chunk on m and fills answers. The
// ids of an upstream batch are the calls' positions in the chunk.
func (p *Pool) sendBatch(ctx context.Context, m *Member, chunk []BatchCall, answers []BatchAnswer) {
	bp := batchBufs.Get().(*[]byte)
	body := append((*bp)[:0], '[')
	olds := p.batchOlds(chunk) // floor.go: a call m's floor is above goes alone, to another member
	for i, c := range chunk {
		if !m.serves(olds.at(i)) {
			continue
		}
		if len(body) > 1 {
			body = append(body, ',')
		}
		body = jsonrpc.AppendRequest(body, uint64(i), c.Method, c.Params)
	}
	body = append(body, ']')
	if len(body) == 2 { // m serves none of them: each goes alone
		*bp = body[:0]
		batchBufs.Put(bp)
		for i := range answers {
			answers[i].Failed = m
		}
		return
	}
	actx, start := p.startAttempt(ctx, m)
	sentAt, reorgs := m.Head(), p.reorgsSeen() // canonstale.go: before the answers are read
	budget := time.Now().Add(p.cfg.RetryBudget)
	out, err := p.attempt(actx, budget, m, body, checkBatchAnswer, hedgeRole{})
	p.endAttempt(actx, m, start, nil, err)
	*bp = body[:0]
	batchBufs.Put(bp)
	for i := range answers {
		answers[i].Failed = m
	}
	if err != nil || !jsonrpc.IsBatch(out) {
		return // failed as a whole (or refused batches with one error): every call alone
	}
	seen := make([]bool, len(answers))
	_ = jsonrpc.Responses(out, func(id json.RawMessage, resp jsonrpc.Response, err error) bool { // one pass over the answer
		if err != nil {
			return true // malformed (an id such as 00 included): the call it meant goes alone
		}
		i, err := strconv.ParseUint(string(id), 10, 32)
		if err != nil || i >= uint64(len(answers)) {
			return true // not ours
		}
		if seen[i] {
			answers[i].Resp = nil // answered twice: neither answer is trusted, the call goes alone
			return true
		}
		seen[i] = true
		p.learnFloor(m, olds.at(int(i)), &resp) // floor.go
		if IsNodeFaultAnswer(resp.Err) {
			return true // a lagging node's answer: that call goes alone
		}
		if p.verifyAnswer(ctx, m, Call{Rule: chunk[i].Rule, Params: chunk[i].Params, Idempotent: true}, &resp) != nil {
			return true // verify.go: m is quarantined, the call goes alone
		}
		k := kindOf(chunk[i].Rule)
		if n, lag := p.judgeCanon(ctx, budget, k, chunk[i].Params, &resp, m); lag {
			if p.ahead(p.triedOnly(m), max(n, 1)-1) {
				return true // canonjudge.go: m is on another branch; that call goes alone, to a member on the canonical one
			}
		} else {
			p.learn(m, k, chunk[i].Params, &resp, reorgs)
		}
		if below, lag := p.lagBelow(k, k.blockOf(chunk[i].Params), &resp, sentAt); lag && p.ahead(p.triedOnly(m), below) {
			return true // a member ahead may have what this one has not: that call goes alone
		}
		answers[i] = BatchAnswer{Resp: &resp, Member: m.Name()}
		return true
	})
}

// checkBatchAnswer accepts an array (checked element by element when
// spliced) or one JSON-RPC response (a node that refuses batches says so
// in one error object: not a fault of the node).
func checkBatchAnswer(out []byte) error {
	if jsonrpc.IsBatch(out) {
		return nil
	}
	if _, _, err := jsonrpc.DecodeResponse(out); err != nil {
		return errNotBatchAnswer
	}
	return nil
}

// triedOnly marks failed as tried (unless it is the only member).
func (p *Pool) triedOnly(failed *Member) []bool {
	tried := make([]bool, len(p.members))
	if i := p.index(failed); i >= 0 && len(p.members) > 1 {
		tried[i] = true
	}
	return tried
}
