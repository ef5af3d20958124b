package upstream

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// An answer judged against the canonical chain by the blocks it names: a
// block, a transaction, a receipt (answerblock.go), and every log of an
// eth_getLogs answer and every receipt of an eth_getBlockReceipts answer,
// each by its own block number and hash. An answer naming a block the
// chain holds with another hash, or one above its head that left it
// lately (a rewind to a shorter chain: canongone.go), is off the chain.
// One off the chain, or naming another block above the chain's head,
// comes from a member whose head moved since the pool last read it (a
// fork the pool has not seen yet, or a block more): that member's head
// is read again (one read per member at a time; calls that find one
// under way wait for it) and the chain follows it as it follows any head
// (canon.go), then the answer is judged again. Still off the
// chain — or above its head from a member on another branch —, the member
// is on another branch: the answer is a lag answer, asked of a member on
// the canonical branch (judge.go, send.go) while one can answer, and never
// cached (cache.go's Final). So is an answer naming, at the height of a
// peer's pending claim, another block than the claim's (canonclaim.go),
// or a block below it while a member has not reported its head since the
// claim came (canonbelow.go), after the same read of its member's head:
// the member is not marked on another branch (the chain may not know it
// yet), and a member that has the claimed block answers, its head
// followed on the way.

// answerPlace is where the blocks an answer names are against the chain.
type answerPlace uint8

const (
	placeNone    answerPlace = iota // no block named, or none the window can judge
	placeOn                         // every block named is the chain's
	placeAbove                      // a block above the chain's head
	placeClaimed                    // another block at the height of a peer's claim (canonclaim.go)
	placeOff                        // a block the chain holds with another hash, or one it left above its head
)

// placeAnswer reads the blocks resp, an answer to a call of kind k with
// params, names and places the worst of them; n is that block's number.
func (p *Pool) placeAnswer(k kind, params json.RawMessage, resp *jsonrpc.Response) (n uint64, place answerPlace) {
	if resp.Err != nil || len(resp.Result) == 0 || p.cfg.HeadBlockMethod == "" {
		return 0, placeNone
	}
	switch {
	case k.Answer == methods.AnswerLogs || k.Answer == methods.AnswerBlockReceipts:
		if resp.Result[0] != '[' {
			return 0, placeNone
		}
		var last common.Hash
		_ = jsonrpc.Elements(resp.Result, func(elem []byte) bool {
			x, h, ok := inBlock(elem)
			if !ok || h == last {
				return true // consecutive entries of one block: judged once
			}
			last = h
			if pl := p.place(x, h); pl > place {
				n, place = x, pl
			}
			return place != placeOff
		})
		return n, place
	case k.Proves == "" || k.Proves == methods.ProvesHead || namesPending(k, params):
		return 0, placeNone
	}
	x, h, ok := k.answerBlock(resp.Result)
	if !ok {
		return 0, placeNone
	}
	return x, p.place(x, h)
}

// receiptFacts reads a log's or receipt's block: "blockNumber" beside "blockHash".
var receiptFacts = kind{&methods.Rule{Proves: "blockNumber"}}

// inBlock is the block a log or receipt names.
func inBlock(elem []byte) (uint64, common.Hash, bool) {
	if len(elem) == 0 || elem[0] != '{' {
		return 0, common.Hash{}, false
	}
	return receiptFacts.answerBlock(elem)
}

// place is where block n with hash h is against the chain.
func (p *Pool) place(n uint64, h common.Hash) answerPlace {
	c := p.canon
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.has {
		return placeNone
	}
	if c.claimDisagrees(n, h) || n < c.claim.block.Number && p.claimShadows(n, nowNano()) {
		return placeClaimed // canonclaim.go, canonbelow.go
	}
	if n > c.head.Number {
		if c.left(n, h) {
			return placeOff // a rewind to a shorter chain left it (canongone.go): off, not ahead
		}
		return placeAbove
	}
	ch, held := c.at(n)
	switch {
	case !held:
		return placeNone
	case ch != h:
		return placeOff
	}
	return placeOn
}

// judgeCanon places m's answer; when it is off the chain or above its
// head, or not a peer's claim at its height, m's head is read again and
// the answer placed again (for a claim, once the chain holds it or drops
// it, within budget: canonclaim.go). lag reports
// that the answer is a lag answer (m is on another branch); n is the
// block that made it one.
func (p *Pool) judgeCanon(ctx context.Context, budget time.Time, k kind, params json.RawMessage, resp *jsonrpc.Response, m *Member) (n uint64, lag bool) {
	n, place := p.placeAnswer(k, params, resp)
	if place < placeAbove {
		return n, false
	}
	if p.rereadHead(ctx, m) {
		n, place = p.placeAnswer(k, params, resp)
	}
	if place == placeClaimed {
		n, place = p.awaitClaim(ctx, budget, k, params, resp) // canonclaim.go
	}
	switch {
	case place == placeOff:
		m.offBranch.Store(true) // until its next head says otherwise
		return n, true
	case place == placeAbove && m.offBranch.Load():
		return 0, true // above the chain, on a branch the chain does not follow
	case place == placeClaimed:
		return n, true // canonclaim.go: not the block another replica gave at n
	}
	return n, false
}

// reread is one read of a member's head again, shared by the calls that
// need it at once.
type reread struct {
	mu   sync.Mutex
	done chan struct{} // nil: none under way
}

// rereadHead reads m's head again and reports it (canon.go), or waits
// for a read under way; false when ctx ended first or the read failed.
func (p *Pool) rereadHead(ctx context.Context, m *Member) bool {
	if !p.started.Load() {
		return false
	}
	r := &m.reread
	r.mu.Lock()
	if done := r.done; done != nil {
		r.mu.Unlock()
		select {
		case <-done:
			return true
		case <-ctx.Done():
			return false
		}
	}
	done := make(chan struct{})
	r.done = done
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.done = nil
		r.mu.Unlock()
		close(done)
	}()
	b, err := p.pollHead(ctx, m)
	if err != nil || b.Hash == (common.Hash{}) {
		return false
	}
	p.reportBlock(m, b)
	return true
}
