package subs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Options tune a hub. Zero values take the defaults.
type Options struct {
	// MaxGapFill bounds how many missed newHeads are fetched by number after
	// a reconnect or a gap (default 128).
	MaxGapFill int
	// MaxHeld bounds the notifications kept for a subscription whose
	// eth_subscribe answer is not yet on the wire (default 1024).
	MaxHeld int
	// DialTimeout bounds one attempt to reach a source (default 10s).
	DialTimeout time.Duration
	// MaxBackoff bounds the wait between re-subscription attempts (default 5s).
	MaxBackoff time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxGapFill <= 0 {
		o.MaxGapFill = 128
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = 1024
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	return o
}

// Hub is the subscription hub of one network.
type Hub struct {
	opts    Options
	sources []Source

	mu      sync.Mutex
	streams map[string]*stream
	closed  bool

	// connMu serialises dialling; cur is the client every stream subscribes on.
	connMu sync.Mutex
	cur    *rpc.Client
	curIdx int

	stats hubStats // stats.go
}

// NewHub makes a hub over the given sources, tried in order.
func NewHub(opts Options, sources ...Source) *Hub {
	return &Hub{opts: opts.withDefaults(), sources: sources, streams: make(map[string]*stream)}
}

// Streams is the number of upstream subscriptions the hub holds.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// Close ends every upstream subscription and the upstream connection.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	streams := h.streams
	h.streams = make(map[string]*stream)
	h.mu.Unlock()
	for _, st := range streams {
		st.stop()
	}
	h.connMu.Lock()
	if h.cur != nil {
		h.cur.Close()
		h.cur = nil
	}
	h.connMu.Unlock()
}

var errHubClosed = errors.New("subscription hub closed")

// client returns the upstream client to subscribe on. When failed is the
// current client, it is dropped and the next source is dialled, so that a
// dead node is not tried again first.
func (h *Hub) client(ctx context.Context, failed *rpc.Client) (*rpc.Client, error) {
	h.connMu.Lock()
	defer h.connMu.Unlock()
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, errHubClosed
	}
	if h.cur != nil && h.cur != failed {
		return h.cur, nil
	}
	if h.cur != nil {
		h.cur.Close()
		h.cur = nil
		h.curIdx = (h.curIdx + 1) % len(h.sources)
	}
	if len(h.sources) == 0 {
		return nil, errors.New("no subscription source")
	}
	src := h.sources[h.curIdx]
	dctx, cancel := context.WithTimeout(ctx, h.opts.DialTimeout)
	defer cancel()
	c, err := src.Dial(dctx)
	if err != nil {
		h.curIdx = (h.curIdx + 1) % len(h.sources)
		return nil, fmt.Errorf("subscription source %s: %w", src.Name, err)
	}
	slog.Debug("subscription source connected", "source", src.Name)
	h.cur = c
	return c, nil
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
	}
	h.mu.Unlock()
	if last {
		st.stop()
	}
}
