package subs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// newHeads and logs made from the pool's canonical chain, on a pool that
// keeps one by hash (upstream.CanonView.Tracked), whatever its members
// can push (fedByChain): one feed per network
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
// members are lost, move or reconnect; a read that fails is tried again
// while its block is on the chain (chainread.go), so no block is skipped.

// rules of the reads the feed sends (the pool routes by them).
var (
	evmRules           = methods.NewTable(methods.FamilyEVM)
	blockByHashRule, _ = evmRules.Lookup("eth_getBlockByHash")
	logsRule, _        = evmRules.Lookup("eth_getLogs")
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
	// lastHead is the number of the last head newHeads sent (0: none
	// since this Follow began).
	lastHead uint64
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
// chain on this hub: newHeads and logs, whenever the pool keeps one,
// whatever its members (a member's own newHeads is followed only on pools
// that keep none: heads.go).
func (h *Hub) fedByChain(kind string) bool {
	return h.feed != nil && (kind == KindNewHeads || kind == KindLogs)
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
// the head the chain went back to (sent again), then the heads and logs
// of the blocks that joined.
func (f *chainFeed) handle(gen uint64, ev upstream.CanonEvent) {
	if gen != f.runGen { // a new Follow: the logs of the last one's blocks are not this one's
		clear(f.logs)
		f.logOrder, f.runGen, f.lastHead = f.logOrder[:0], gen, 0
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
	if b := ev.Again; heads != nil && b.Hash != (common.Hash{}) {
		// The chain went back to a block already sent: a node sends it
		// again as its head (its logs are not new).
		if err := f.deliverHead(gen, heads, b); err == nil {
			f.lastHead = b.Number
		} else if errors.Is(err, errHubClosed) || errors.Is(err, errNotFollowing) {
			return
		}
	}
	for i, b := range ev.Added {
		var err error
		if heads != nil && headSent(ev, i, f.lastHead) {
			if err = f.deliverHead(gen, heads, b); err == nil {
				f.lastHead = b.Number
			}
		}
		if len(logStreams) > 0 && err == nil {
			err = f.deliverLogs(gen, logStreams, b)
		}
		if errors.Is(err, errHubClosed) || errors.Is(err, errNotFollowing) {
			return
		}
	}
}

// headSent reports whether newHeads sends the i-th block a change added,
// the last head sent being number last: every one when the chain grew on
// its head (blocks a head poll skipped included); after a reorganisation
// the new head, and the new branch's blocks above last before it — as
// go-ethereum sends only the head it sets as canonical (the blocks of the
// new branch at or below the old head were never its heads), and a
// subscriber is not left a gap in numbers when the pool saw the new
// branch only some blocks after the fork.
func headSent(ev upstream.CanonEvent, i int, last uint64) bool {
	return len(ev.Removed) == 0 || i == len(ev.Added)-1 || ev.Added[i].Number > last
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

// deliverHead sends b's header to the newHeads stream, once it is read
// (chainread.go: an error only when b is owed no more).
func (f *chainFeed) deliverHead(gen uint64, st *stream, b upstream.CanonBlock) error {
	raw := b.Block
	if raw == nil {
		var err error
		if raw, err = f.read(gen, b, "header", func(ctx context.Context) (json.RawMessage, error) { return f.readBlock(ctx, b.Hash) }); err != nil {
			slog.Info("subscription: newHeads block not sent", "block", b.Number, "hash", b.Hash.Hex(), "err", err)
			return err
		}
	}
	out, err := headerOf(raw)
	if err != nil {
		slog.Warn("subscription: newHeads block unreadable; skipped", "block", b.Number, "err", err)
		return nil
	}
	st.fanout(out)
	return nil
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

// deliverLogs reads b's logs (chainread.go: an error only when b is owed
// no more) and sends each to the streams it matches, remembering them for
// a removal.
func (f *chainFeed) deliverLogs(gen uint64, streams []*stream, b upstream.CanonBlock) error {
	raw, err := f.read(gen, b, "logs", func(ctx context.Context) (json.RawMessage, error) { return f.readLogs(ctx, b.Hash) })
	if err != nil {
		slog.Info("subscription: a block's logs not sent", "block", b.Number, "hash", b.Hash.Hex(), "err", err)
		return err
	}
	logs, err := parseBlockLogs(raw)
	if err != nil {
		slog.Warn("subscription: a block's logs unreadable; skipped", "block", b.Number, "err", err)
		return nil
	}
	for i := range logs {
		f.fanoutLog(streams, &logs[i], logs[i].raw)
	}
	f.remember(b.Hash, logs)
	return nil
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
