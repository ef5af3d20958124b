package subs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Options tune a hub. Zero values take the defaults.
type Options struct {
	// MaxGapFill bounds how many missed newHeads are fetched by number after
	// a move or a gap (default 128).
	MaxGapFill int
	// MaxHeld bounds the notifications kept for a subscription whose
	// eth_subscribe answer is not yet on the wire (default 1024).
	MaxHeld int
	// CallTimeout bounds one call to a member: a subscribe, a gap fill's
	// read (default 10s).
	CallTimeout time.Duration
	// MaxBackoff bounds the wait between re-subscription attempts (default 5s).
	MaxBackoff time.Duration
	// ReviewInterval is how often, at most, the hub checks its member
	// without being woken by the pool (default 250ms).
	ReviewInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxGapFill <= 0 {
		o.MaxGapFill = 128
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = 1024
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	if o.ReviewInterval <= 0 {
		o.ReviewInterval = 250 * time.Millisecond
	}
	return o
}

// Hub is the subscription hub of one network. Every stream runs on one
// member of the network's pool, the one the pool ranks best for it
// (upstream.Pool.SubscriptionMember); the hub moves them all when that
// member leaves service or falls behind (follow.go).
type Hub struct {
	opts Options
	pool *upstream.Pool

	mu      sync.Mutex
	streams map[string]*stream
	closed  bool

	// cur is the member every stream subscribes on; moved is closed when
	// it changes (and replaced). lagSince is when cur was first seen
	// lagging beyond MaxLag (zero while it is not).
	curMu    sync.Mutex
	cur      *upstream.Member
	moved    chan struct{}
	lagSince time.Time

	quit chan struct{}
	done chan struct{}

	stats hubStats // stats.go

	// feed makes newHeads and logs from the pool's canonical chain (nil:
	// the pool keeps none; they run on a member's subscription): chain.go.
	// chainList is the snapshot of the streams it feeds (nil: changed),
	// guarded by mu.
	feed      *chainFeed
	chainList []*stream
}

// NewHub makes the hub of the network whose node side is pool; it follows
// the pool's view of its members until Close.
func NewHub(opts Options, pool *upstream.Pool) *Hub {
	h := &Hub{opts: opts.withDefaults(), pool: pool, streams: make(map[string]*stream),
		moved: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
	if pool.Canon().Tracked() {
		h.feed = newChainFeed(h)
		go h.feed.run()
	}
	go h.follow()
	return h
}

// Streams is the number of upstream subscriptions the hub holds.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// Member names the member the streams run on ("" before the first
// subscription or while none can serve).
func (h *Hub) Member() string {
	h.curMu.Lock()
	defer h.curMu.Unlock()
	if h.cur == nil {
		return ""
	}
	return h.cur.Name()
}

// Close ends every upstream subscription. The pool and its members'
// connections are the network's, not the hub's: they stay.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	streams := h.streams
	h.streams = make(map[string]*stream)
	h.mu.Unlock()
	close(h.quit)
	<-h.done
	if h.feed != nil {
		h.feed.stopBase()
		<-h.feed.done
	}
	for _, st := range streams {
		st.stop()
	}
}

var (
	errHubClosed = errors.New("subscription hub closed")
	errNoMember  = errors.New("no member in service takes subscriptions")
)

// member returns the member to subscribe on and the channel closed when
// the hub moves away from it. failed, when given, is a member a
// subscription just failed on: the hub moves away from it if another
// member can serve.
func (h *Hub) member(failed *upstream.Member) (*upstream.Member, <-chan struct{}, error) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, nil, errHubClosed
	}
	h.curMu.Lock()
	defer h.curMu.Unlock()
	if h.cur != nil && h.cur != failed && h.cur.InService() {
		return h.cur, h.moved, nil
	}
	next := h.pool.SubscriptionMember(failed)
	if next == nil {
		return nil, nil, errNoMember
	}
	h.moveLocked(next, "its member is out of service or failed")
	return h.cur, h.moved, nil
}

// moveLocked makes next the streams' member; streams on another one move.
func (h *Hub) moveLocked(next *upstream.Member, why string) {
	if next == h.cur {
		return
	}
	if h.cur != nil {
		slog.Info("subscriptions move", "pool", h.pool.Name(), "from", h.cur.Name(), "to", next.Name(), "why", why)
		close(h.moved)
		h.moved = make(chan struct{})
	}
	h.cur, h.lagSince = next, time.Time{}
}

// join adds sub to the stream of req, creating the stream and its upstream
// subscription when it is the first.
func (h *Hub) join(ctx context.Context, req request, sub *subscription) (*stream, *jsonrpc.Error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, jsonrpc.ErrUpstreamUnavailable()
	}
	st := h.streams[req.key]
	if st == nil {
		st = newStream(h, req)
		h.streams[req.key] = st
		h.chainList = nil
	}
	st.refs++
	h.mu.Unlock()
	if err := st.start(ctx); err != nil {
		h.leave(st, nil)
		return nil, err
	}
	st.add(sub)
	return st, nil
}

// leave removes sub from st; the last one out ends the upstream subscription.
func (h *Hub) leave(st *stream, sub *subscription) {
	if sub != nil {
		st.remove(sub)
	}
	h.mu.Lock()
	st.refs--
	last := st.refs == 0
	if last && h.streams[st.req.key] == st {
		delete(h.streams, st.req.key)
		h.chainList = nil
	}
	h.mu.Unlock()
	if last {
		st.stop()
	}
}

// chainStreams are the streams the chain feeds: the newHeads one (nil:
// none) and the logs ones. The snapshot (the newHeads stream first) is
// never modified once made.
func (h *Hub) chainStreams() (heads *stream, logs []*stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.chainList == nil {
		h.chainList = make([]*stream, 0, len(h.streams))
		for _, st := range h.streams {
			switch {
			case st.req.kind == KindNewHeads && h.fedByChain(KindNewHeads):
				h.chainList = append([]*stream{st}, h.chainList...)
			case st.req.kind == KindLogs && h.fedByChain(KindLogs):
				h.chainList = append(h.chainList, st)
			}
		}
	}
	if len(h.chainList) > 0 && h.chainList[0].req.kind == KindNewHeads {
		return h.chainList[0], h.chainList[1:]
	}
	return nil, h.chainList
}
