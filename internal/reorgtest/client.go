package reorgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/testenv"
)

// Poller is a client over HTTP that asks, in turn, for the latest block,
// the same block by number, a recent transaction's receipt and its block
// by number, the safe and finalized blocks and eth_blockNumber, and
// judges each answer against the tree (Counts).
type Poller struct {
	URL  string
	Tree *Tree
	C    Counts
	http *http.Client
	view view
	// what it was given last
	latest      ref
	safe, final uint64
	number      uint64
	turn        uint64
	receipts    map[common.Hash]given // transactions whose receipt it was given
	// Log, when set, traces every fault it counts (trace.go).
	Log  func(format string, args ...any)
	last lastCall
}

// ref is a block as an answer names it.
type ref struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// NewPoller is a poller of url judged against tree.
func NewPoller(url string, tree *Tree) *Poller {
	p := &Poller{URL: url, Tree: tree, view: view{tree: tree}, receipts: map[common.Hash]given{}}
	p.http = &http.Client{Timeout: 30 * time.Second, Transport: replicaOf{http.DefaultTransport, &p.last.replica}}
	return p
}

// waitedAfter is how long a call takes to count as Waited.
const waitedAfter = 200 * time.Millisecond

// pollPause is the pause between two rounds of a poller (a round is
// seven or eight calls): a client that asks often, not a load test.
const pollPause = 20 * time.Millisecond

// Run polls until ctx ends.
func (p *Poller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		p.round(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(pollPause):
		}
	}
}

func (p *Poller) round(ctx context.Context) {
	p.turn++
	start := time.Now()
	if latest, ok := p.block(ctx, `"latest"`); ok {
		p.judgeLatest(latest)
		latestCall := p.last
		byNumber, ok := p.block(ctx, fmt.Sprintf(`"%s"`, latest.Number))
		if ok {
			p.C.LatestPairs++
			p.C.LatestPairMicros += time.Since(start).Microseconds()
		}
		if ok && byNumber.Hash != latest.Hash {
			p.C.LatestMismatches++
			p.traceMismatch("latest→block", start, latest.Hash, latestCall, byNumber.Hash)
		}
		p.receipt(ctx, latest)
		p.matrix(ctx, latest)
	}
	if safe, ok := p.block(ctx, `"safe"`); ok {
		if uint64(safe.Number) < p.safe {
			p.C.SafeBacks++
		}
		p.safe = max(p.safe, uint64(safe.Number))
	}
	if final, ok := p.block(ctx, `"finalized"`); ok {
		if uint64(final.Number) < p.final {
			p.C.FinalizedBacks++
		}
		p.final = max(p.final, uint64(final.Number))
	}
	var n hexutil.Uint64
	if p.call(ctx, "eth_blockNumber", "[]", &n) {
		if uint64(n) < p.number {
			p.C.BlockNumberBacks++
		}
		p.number = uint64(n)
	}
}

// judgeLatest counts a latest block lower than the last one given: on
// the same branch (an ancestor of the last one, which is still on the
// builder's chain) a lagging answer, else the chain going back.
func (p *Poller) judgeLatest(b ref) {
	if prev := p.latest; prev.Hash != (common.Hash{}) && b.Number < prev.Number {
		if p.Tree.Ancestor(b.Hash, prev.Hash) && p.Tree.Of(prev.Hash).AbandonedBy == 0 {
			p.C.BackwardsHeads++
		} else {
			p.C.ReorgBacks++
		}
	}
	p.latest = b
}

// receipt asks for the receipt of a transaction of a block 0 to 3 below
// latest (in turn) and for the block it names by number.
func (p *Poller) receipt(ctx context.Context, latest ref) {
	depth := p.turn % 4
	if uint64(latest.Number) < depth {
		return
	}
	hash, ok := p.Tree.Canonical(uint64(latest.Number) - depth)
	if !ok {
		return
	}
	txs := p.Tree.Txs(hash)
	if len(txs) == 0 {
		return
	}
	var r *struct {
		BlockHash   common.Hash    `json:"blockHash"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	start := time.Now()
	if !p.call(ctx, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, txs[0]), &r) {
		return
	}
	if r == nil {
		p.nullReceipt(txs[0], hash, uint64(latest.Number)-depth, latest.Hash)
		return
	}
	receiptCall := p.last
	p.receipts[txs[0]] = given{block: r.BlockHash, at: time.Now(), replica: receiptCall.replica}
	p.judge(r.BlockHash)
	if b, ok := p.block(ctx, fmt.Sprintf(`"%s"`, r.BlockNumber)); ok && b.Hash != r.BlockHash {
		p.C.ReceiptMismatches++
		p.traceMismatch("receipt→block", start, r.BlockHash, receiptCall, b.Hash)
	}
}

// block asks for a block (without transactions) and judges its hash;
// false when the call failed or the block is null.
func (p *Poller) block(ctx context.Context, tag string) (ref, bool) {
	var b *ref
	if !p.call(ctx, "eth_getBlockByNumber", "["+tag+",false]", &b) || b == nil {
		return ref{}, false
	}
	p.judge(b.Hash)
	return *b, true
}

func (p *Poller) judge(hash common.Hash) {
	newest := p.view.maxGen
	ok, unknown := p.view.saw(hash)
	if !ok {
		p.traceFlipBack(hash, newest)
	}
	if unknown {
		p.C.Unknown++
	}
	if !ok {
		p.C.FlipBacks++
	}
}

// call sends one call and decodes its result into out; a failure is
// counted (unless ctx ended).
func (p *Poller) call(ctx context.Context, method, params string, out any) bool {
	err := p.ask(ctx, method, params, out)
	if err != nil && ctx.Err() == nil {
		p.C.fail(err)
	}
	return err == nil
}

// ask sends one call and decodes its result into out; the caller counts
// a failure.
func (p *Poller) ask(ctx context.Context, method, params string, out any) error {
	start := time.Now()
	p.last = lastCall{call: method + " " + params}
	status, body, err := testenv.Post(ctx, p.http, p.URL, testenv.RPCBody(method, params))
	p.last.took = time.Since(start)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if took := time.Since(start); took > waitedAfter {
		p.C.Waited++
		p.traceWaited(start)
		if took > time.Second {
			p.C.Slow++
		}
	}
	var a testenv.Answer
	switch {
	case err != nil:
	case status != http.StatusOK:
		err = fmt.Errorf("%s: HTTP %d %.200s", method, status, body)
	default:
		if err = json.Unmarshal(body, &a); err == nil && a.Error != nil {
			err = fmt.Errorf("%s: %w", method, a.Error)
		} else if err == nil {
			err = json.Unmarshal(a.Result, out)
		}
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, params, err)
	}
	p.C.Answers++
	return nil
}

// Stale asks, once every member is on the final chain, for each block
// from..to by number and each of its transactions' receipts, and counts
// the answers that are not the tree's canonical ones (served from an
// abandoned branch: a cache that kept them).
func (p *Poller) Stale(ctx context.Context, from, to uint64) {
	for n := from; n <= to && ctx.Err() == nil; n++ {
		want, ok := p.Tree.Canonical(n)
		if !ok {
			continue
		}
		if b, ok := p.block(ctx, fmt.Sprintf(`"0x%x"`, n)); ok && b.Hash != want {
			p.C.StaleBlocks++
		}
		for _, tx := range p.Tree.Txs(want) {
			var r *struct {
				BlockHash common.Hash `json:"blockHash"`
			}
			if p.call(ctx, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, tx), &r) && (r == nil || r.BlockHash != want) {
				p.C.StaleReceipts++
			}
		}
	}
}
