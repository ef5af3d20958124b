package subs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// stream is one upstream subscription shared by every client subscription
// with the same kind and filter.
type stream struct {
	hub *Hub
	req request

	refs int // guarded by hub.mu

	startOnce sync.Once
	startErr  *jsonrpc.Error
	quit      chan struct{}
	stopOnce  sync.Once

	// subs are the stream's client subscriptions; list is their snapshot
	// for the fan-out, made again after a change (nil: changed).
	mu   sync.Mutex
	subs map[*subscription]struct{}
	list []*subscription

	// Used by the run goroutine alone.
	heads headTracker // newHeads
	logs  logTracker  // logs

	// A stream made from the canonical chain (chain.go): fed counts it
	// with the hub's feed while it lives; filter is a logs stream's
	// filter, filterErr the answer when it is refused.
	fed       atomic.Bool
	filter    logFilter
	filterErr *jsonrpc.Error
}

func newStream(h *Hub, req request) *stream {
	st := &stream{hub: h, req: req, quit: make(chan struct{}), subs: make(map[*subscription]struct{})}
	if req.kind == KindLogs && h.fedByChain(KindLogs) {
		st.filter, st.filterErr = checkLogFilter(req.filter)
	}
	return st
}

// start makes the upstream subscription once; later callers wait for it and
// share its outcome.
func (st *stream) start(ctx context.Context) *jsonrpc.Error {
	st.startOnce.Do(func() {
		if st.hub.fedByChain(st.req.kind) {
			if st.startErr = st.filterErr; st.startErr == nil {
				st.fed.Store(true)
				st.hub.feed.use()
			}
			return
		}
		m, moved, err := st.hub.member(nil)
		if errors.Is(err, errNoMember) && !st.hub.pool.Subscribers() {
			st.startErr = errNoPushingMember(st.req.kind)
			return
		}
		if err != nil {
			slog.Warn("subscription: no upstream", "kind", st.req.kind, "err", err)
			st.startErr = jsonrpc.ErrUpstreamUnavailable()
			return
		}
		if st.req.kind == KindNewHeads {
			st.heads.begin(st.hub.pool.Head()) // before the subscription: no head after it is missed
		}
		sub, err := st.subscribe(ctx, m)
		if err != nil {
			st.startErr = upstreamError(err)
			return
		}
		go st.run(m, moved, sub)
	})
	return st.startErr
}

// subscribe opens the stream's upstream subscription on m.
func (st *stream) subscribe(ctx context.Context, m *upstream.Member) (*upstream.Subscription, error) {
	s := m.Subscriber()
	if s == nil {
		return nil, errNoMember
	}
	ctx, cancel := context.WithTimeout(ctx, st.hub.opts.CallTimeout)
	defer cancel()
	return s.Subscribe(ctx, st.req.params)
}

// upstreamError keeps a node's own JSON-RPC error (code and message), so a
// bad filter is answered as the node would answer it.
func upstreamError(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	slog.Warn("subscription: upstream failed", "err", err)
	return jsonrpc.ErrUpstreamUnavailable()
}

func (st *stream) add(sub *subscription) {
	st.mu.Lock()
	st.subs[sub] = struct{}{}
	st.list = nil
	st.mu.Unlock()
}

func (st *stream) remove(sub *subscription) {
	st.mu.Lock()
	delete(st.subs, sub)
	st.list = nil
	st.mu.Unlock()
}

// snapshot is the stream's subscriptions now. The slice is never modified
// once made: a change makes a new one at the next fan-out.
func (st *stream) snapshot() []*subscription {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.list == nil {
		st.list = make([]*subscription, 0, len(st.subs))
		for sub := range st.subs {
			st.list = append(st.list, sub)
		}
	}
	return st.list
}

func (st *stream) stop() {
	st.stopOnce.Do(func() {
		close(st.quit)
		if st.fed.Swap(false) {
			st.hub.feed.release()
		}
	})
}

// errNoPushingMember answers a subscription of a kind only a member's own
// subscription gives, on a network none of whose members can push.
func errNoPushingMember(kind string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, fmt.Sprintf("notifications not supported: %s needs an upstream that pushes (an embedded or ws:// one); this network's are http(s):// only", kind))
}

// run forwards notifications until the stream stops, subscribing again
// when the upstream subscription ends without being asked to or when the
// hub moves to another member.
func (st *stream) run(m *upstream.Member, moved <-chan struct{}, sub *upstream.Subscription) {
	for {
		select {
		case raw := <-sub.C:
			st.deliver(m, raw)
		case <-sub.Done():
			st.drain(m, sub)
			slog.Info("subscription: upstream subscription ended, re-subscribing", "kind", st.req.kind, "upstream", m.Name(), "err", sub.Err())
			if m, moved, sub = st.resubscribe(m); sub == nil {
				return
			}
		case <-moved:
			sub.Unsubscribe()
			st.drain(m, sub)
			if m, moved, sub = st.resubscribe(nil); sub == nil {
				return
			}
		case <-st.quit:
			sub.Unsubscribe()
			return
		}
	}
}

// drain delivers what an ended subscription still holds: those
// notifications came before its end, in order.
func (st *stream) drain(m *upstream.Member, sub *upstream.Subscription) {
	for {
		select {
		case raw := <-sub.C:
			st.deliver(m, raw)
		default:
			return
		}
	}
}

// resubscribe subscribes again on the hub's member (another one than
// failed, when one can serve) until it works or the stream stops (then sub
// is nil). Before the new subscription's first notification, newHeads
// missed meanwhile are fetched by number, and what the stream already
// delivered is not delivered again (heads.go, logs.go).
func (st *stream) resubscribe(failed *upstream.Member) (*upstream.Member, <-chan struct{}, *upstream.Subscription) {
	delay := 50 * time.Millisecond
	for {
		select {
		case <-st.quit:
			return nil, nil, nil
		default:
		}
		m, moved, err := st.hub.member(failed)
		if err == nil {
			var sub *upstream.Subscription
			if sub, err = st.subscribe(context.Background(), m); err == nil {
				st.resumed(m)
				return m, moved, sub
			}
			failed = m
		}
		if errors.Is(err, errHubClosed) {
			return nil, nil, nil
		}
		slog.Warn("subscription: re-subscribe failed", "kind", st.req.kind, "err", err, "retry_in", delay)
		select {
		case <-st.quit:
			return nil, nil, nil
		case <-time.After(delay):
		}
		delay = min(delay*2, st.hub.opts.MaxBackoff)
	}
}

// resumed prepares the stream for notifications from a new upstream
// subscription on m.
func (st *stream) resumed(m *upstream.Member) {
	switch st.req.kind {
	case KindNewHeads:
		st.heads.resumed()
		st.fillToLatest(m)
	case KindLogs:
		st.logs.resumed()
	}
}

// deliver passes one upstream notification to every client subscription.
func (st *stream) deliver(m *upstream.Member, raw json.RawMessage) {
	switch st.req.kind {
	case KindNewHeads:
		st.deliverHead(m, raw)
	case KindLogs:
		st.deliverLog(raw)
	default:
		st.fanout(raw)
	}
}

// fanoutChunk is how many subscriptions a fan-out serves before it yields.
const fanoutChunk = 128

// fanout encodes the notification once and hands it to every client
// subscription, holding none of the hub's locks: each client queues it
// for its connection's writer. It yields after every fanoutChunk, so that
// the writers it started run before it starts more: a head to 10,000
// subscribers does not make 10,000 writer goroutines (each with a stack)
// before the first one writes.
func (st *stream) fanout(raw json.RawMessage) {
	st.fanoutNotification(jsonrpc.NewNotification(raw))
}

// fanoutNotification is fanout of a notification already encoded (a log
// shared by several streams).
func (st *stream) fanoutNotification(n *jsonrpc.Notification) {
	for i, sub := range st.snapshot() {
		sub.client.deliver(sub, n)
		if i%fanoutChunk == fanoutChunk-1 {
			runtime.Gosched()
		}
	}
}
