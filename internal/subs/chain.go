package subs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// logs, and newHeads when no member can push (fedByChain), made from the
// pool's canonical chain, on a pool that keeps one by hash
// (upstream.CanonView.Tracked): one feed per network
// follows the chain (upstream.CanonView.Follow) while some stream of
// those kinds is open, whatever the members are (ws, http, embedded), and
// no member's own subscription is used. For each block that joins the
// chain, lowest first, the feed reads the block (eth_getBlockByHash, when
// a newHeads stream is open and the chain's window did not already give
// it) and the block's logs (one eth_getLogs by block hash, when a logs
// stream is open) through the pool's Send, and hands the header to the
// newHeads stream and each log to every logs stream whose filter matches
// it (logfilter.go). For each block that leaves the chain, lowest first
// (go-ethereum's order), the logs delivered from it go again to the
// matching streams with removed: true, before the logs of the blocks that
// replace it. The follower walks back by parent hash from each new head
// to the last block delivered, so nothing is missed or repeated when
// members are lost, move or reconnect.

// rules of the reads the feed sends (the pool routes by them).
var (
	evmRules           = methods.NewTable(methods.FamilyEVM)
	blockByHashRule, _ = evmRules.Lookup("eth_getBlockByHash")
	logsRule, _        = evmRules.Lookup("eth_getLogs")
	errBlockNotFound   = errors.New("block not found")
)

// chainFeed is a hub's feed of the canonical chain.
type chainFeed struct {
	hub *Hub

	// users counts the open streams fed from the chain; events is their
	// Follow's (nil: none open), gen its number.
	mu     sync.Mutex
	users  int
	events <-chan upstream.CanonEvent
	cancel context.CancelFunc
	gen    uint64
	wake   chan struct{}

	// base ends the feed's reads when the hub closes; done is closed when
	// run returns.
	base     context.Context
	stopBase context.CancelFunc
	done     chan struct{}

	// Used by the run goroutine alone: the logs delivered from each recent
	// block, to send again as removed (order: oldest first, bounded).
	logs     map[common.Hash][]chainLog
	logOrder []common.Hash
	runGen   uint64
}

// maxRememberedBlocks bounds the blocks whose logs the feed keeps for a
// later removal: a reorganisation deeper than the chain's window is not
// followed either.
const maxRememberedBlocks = 128

func newChainFeed(h *Hub) *chainFeed {
	base, stop := context.WithCancel(context.Background())
	return &chainFeed{hub: h, wake: make(chan struct{}, 1), logs: make(map[common.Hash][]chainLog),
		base: base, stopBase: stop, done: make(chan struct{})}
}

// fedByChain reports whether streams of kind are made from the canonical
// chain on this hub: logs always; newHeads when no member can push (a
// member's own newHeads is followed otherwise, heads.go).
func (h *Hub) fedByChain(kind string) bool {
	switch {
	case h.feed == nil:
		return false
	case kind == KindLogs:
		return true
	}
	return kind == KindNewHeads && !h.pool.Subscribers()
}

// use counts one more stream fed from the chain; the first starts
// following it from its head now, so no later block is missed.
func (f *chainFeed) use() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users++
	if f.users == 1 {
		ctx, cancel := context.WithCancel(context.Background())
		f.events, f.cancel = f.hub.pool.Canon().Follow(ctx, f.fetchBlock), cancel
		f.gen++
		f.poke()
	}
}

// release counts one stream less; the last stops following.
func (f *chainFeed) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users--
	if f.users == 0 {
		f.cancel()
		f.events, f.cancel = nil, nil
		f.poke()
	}
}

func (f *chainFeed) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// current is the Follow to read and its number.
func (f *chainFeed) current() (<-chan upstream.CanonEvent, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events, f.gen
}

// run delivers the chain's changes until the hub closes.
func (f *chainFeed) run() {
	defer close(f.done)
	for {
		events, gen := f.current()
		select {
		case ev, ok := <-events:
			if ok && f.live(gen) {
				f.handle(gen, ev)
			}
		case <-f.wake:
		case <-f.hub.quit:
			f.mu.Lock()
			if f.cancel != nil {
				f.cancel()
			}
			f.mu.Unlock()
			return
		}
	}
}

// live reports whether gen is still the Follow in use.
func (f *chainFeed) live(gen uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events != nil && f.gen == gen
}

// handle delivers one change: the removed logs of the blocks that left,
// then the heads and logs of the blocks that joined.
func (f *chainFeed) handle(gen uint64, ev upstream.CanonEvent) {
	if gen != f.runGen { // a new Follow: the logs of the last one's blocks are not this one's
		clear(f.logs)
		f.logOrder, f.runGen = f.logOrder[:0], gen
	}
	heads, logStreams := f.hub.chainStreams()
	for _, b := range ev.Removed {
		for i := range f.logs[b.Hash] {
			l := &f.logs[b.Hash][i]
			raw, err := removedLog(l.raw)
			if err != nil {
				slog.Warn("subscription: a removed log not sent", "block", b.Hash.Hex(), "err", err)
				continue
			}
			f.fanoutLog(logStreams, l, raw)
		}
		delete(f.logs, b.Hash)
	}
	for i, b := range ev.Added {
		if heads != nil && headSent(ev, i) {
			f.deliverHead(heads, b)
		}
		if len(logStreams) > 0 {
			f.deliverLogs(logStreams, b)
		}
	}
}

// headSent reports whether newHeads sends the i-th block a change added:
// every one when the chain grew on its head (blocks a head poll skipped
// included), only the new head after a reorganisation, as go-ethereum
// sends only the head it sets as canonical (the blocks of the new branch
// below it are not heads it ever had).
func headSent(ev upstream.CanonEvent, i int) bool {
	return len(ev.Removed) == 0 || i == len(ev.Added)-1
}

// fanoutLog hands one log, encoded once, to every logs stream it matches.
func (f *chainFeed) fanoutLog(streams []*stream, l *chainLog, raw json.RawMessage) {
	var n *jsonrpc.Notification
	for _, st := range streams {
		if st.filter.matches(l) {
			if n == nil {
				n = jsonrpc.NewNotification(raw)
			}
			st.fanoutNotification(n)
		}
	}
}

// deliverHead sends b's header to the newHeads stream.
func (f *chainFeed) deliverHead(st *stream, b upstream.CanonBlock) {
	raw := b.Block
	if raw == nil {
		var err error
		if raw, err = f.read(func(ctx context.Context) (json.RawMessage, error) { return f.readBlock(ctx, b.Hash) }); err != nil {
			slog.Warn("subscription: newHeads block not read; skipped", "block", b.Number, "hash", b.Hash.Hex(), "err", err)
			return
		}
	}
	out, err := headerOf(raw)
	if err != nil {
		slog.Warn("subscription: newHeads block unreadable; skipped", "block", b.Number, "err", err)
		return
	}
	st.fanout(out)
}

// blockOnlyFields are the fields of a block (eth_getBlockByHash) that its
// header, as newHeads sends it, does not have.
var blockOnlyFields = []string{"transactions", "uncles", "size", "withdrawals", "totalDifficulty"}

// headerOf is a block's header as newHeads sends it: the block's fields as
// the node gave them (its hash included), without the block's body.
func headerOf(block json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(block, &fields); err != nil {
		return nil, fmt.Errorf("block %.100s: %w", block, err)
	}
	for _, f := range blockOnlyFields {
		delete(fields, f)
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("block %.100s: %w", block, err)
	}
	return out, nil
}

// deliverLogs reads b's logs and sends each to the streams it matches,
// remembering them for a removal.
func (f *chainFeed) deliverLogs(streams []*stream, b upstream.CanonBlock) {
	raw, err := f.read(func(ctx context.Context) (json.RawMessage, error) { return f.readLogs(ctx, b.Hash) })
	if err != nil {
		slog.Warn("subscription: a block's logs not read; skipped", "block", b.Number, "hash", b.Hash.Hex(), "err", err)
		return
	}
	logs, err := parseBlockLogs(raw)
	if err != nil {
		slog.Warn("subscription: a block's logs unreadable; skipped", "block", b.Number, "err", err)
		return
	}
	for i := range logs {
		f.fanoutLog(streams, &logs[i], logs[i].raw)
	}
	f.remember(b.Hash, logs)
}

func (f *chainFeed) remember(hash common.Hash, logs []chainLog) {
	if _, ok := f.logs[hash]; !ok {
		f.logOrder = append(f.logOrder, hash)
	}
	f.logs[hash] = logs
	for len(f.logOrder) > maxRememberedBlocks {
		delete(f.logs, f.logOrder[0])
		f.logOrder = f.logOrder[1:]
	}
}

// readAttempts bounds the tries of one read of a block joining the chain
// (each through the pool's own retries on other members).
const readAttempts = 5

// read tries a read of the feed a few times, waiting between tries (the
// pool may have no member in service for a moment), until the hub closes.
func (f *chainFeed) read(fn func(ctx context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	delay := 50 * time.Millisecond
	var err error
	for range readAttempts {
		ctx, cancel := context.WithTimeout(f.base, f.hub.opts.CallTimeout)
		var raw json.RawMessage
		raw, err = fn(ctx)
		cancel()
		if err == nil {
			return raw, nil
		}
		select {
		case <-f.hub.quit:
			return nil, err
		case <-time.After(delay):
		}
		delay = min(delay*2, f.hub.opts.MaxBackoff)
	}
	return nil, err
}

// fetchBlock is the follower's read of a block the chain's window skipped.
func (f *chainFeed) fetchBlock(ctx context.Context, hash common.Hash) (upstream.CanonBlock, error) {
	raw, err := f.readBlock(ctx, hash)
	if err != nil {
		return upstream.CanonBlock{}, err
	}
	var b struct {
		Number     *hexutil.Uint64 `json:"number"`
		Hash       *common.Hash    `json:"hash"`
		ParentHash *common.Hash    `json:"parentHash"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return upstream.CanonBlock{}, fmt.Errorf("block %s: %w", hash.Hex(), err)
	}
	if b.Number == nil || b.Hash == nil || b.ParentHash == nil {
		return upstream.CanonBlock{}, fmt.Errorf("block %s %.100s: no number, hash or parent hash", hash.Hex(), raw)
	}
	return upstream.CanonBlock{Number: uint64(*b.Number), Hash: *b.Hash, Parent: *b.ParentHash, Block: raw}, nil
}

// readBlock reads the block with hash through the pool.
func (f *chainFeed) readBlock(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	params := fmt.Appendf(nil, `["%s",false]`, hash.Hex())
	return f.send(ctx, blockByHashRule, params)
}

// readLogs reads the logs of the block with hash through the pool.
func (f *chainFeed) readLogs(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	params := fmt.Appendf(nil, `[{"blockHash":"%s"}]`, hash.Hex())
	return f.send(ctx, logsRule, params)
}

// send makes one read through the pool's Send; a null answer (no member
// has the block) is an error.
func (f *chainFeed) send(ctx context.Context, rule *methods.Rule, params []byte) (json.RawMessage, error) {
	body := jsonrpc.AppendRequest(nil, 1, rule.Name, json.RawMessage(params))
	resp, _, err := f.hub.pool.Send(ctx, upstream.Call{Body: body, Rule: rule, Params: params, Idempotent: true})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", rule.Name, err)
	case resp.Err != nil:
		return nil, fmt.Errorf("%s: %w", rule.Name, resp.Err)
	case len(resp.Result) == 0 || string(resp.Result) == "null":
		return nil, fmt.Errorf("%s %s: %w", rule.Name, params, errBlockNotFound)
	}
	return resp.Result, nil
}
