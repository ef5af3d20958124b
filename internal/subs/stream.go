package subs

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
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

	mu   sync.Mutex
	subs map[*subscription]struct{}

	heads headTracker // newHeads only; used by the run goroutine alone
}

func newStream(h *Hub, req request) *stream {
	return &stream{hub: h, req: req, quit: make(chan struct{}), subs: make(map[*subscription]struct{})}
}

// start makes the upstream subscription once; later callers wait for it and
// share its outcome.
func (st *stream) start(ctx context.Context) *jsonrpc.Error {
	st.startOnce.Do(func() {
		c, err := st.hub.client(ctx, nil)
		if err != nil {
			slog.Warn("subscription: no upstream", "kind", st.req.kind, "err", err)
			st.startErr = jsonrpc.ErrUpstreamUnavailable()
			return
		}
		ch := make(chan json.RawMessage, 64)
		sub, err := c.Subscribe(ctx, "eth", ch, st.req.args...)
		if err != nil {
			st.startErr = upstreamError(err)
			return
		}
		go st.run(c, sub, ch)
	})
	return st.startErr
}

// upstreamError keeps a node's own JSON-RPC error (code and message), so a
// bad filter is answered as the node would answer it.
func upstreamError(err error) *jsonrpc.Error {
	var re rpc.Error
	if errors.As(err, &re) {
		e := jsonrpc.NewError(re.ErrorCode(), re.Error())
		var de rpc.DataError
		if errors.As(err, &de) {
			if raw, merr := json.Marshal(de.ErrorData()); merr == nil {
				e.Data = raw
			}
		}
		return e
	}
	slog.Warn("subscription: upstream failed", "err", err)
	return jsonrpc.ErrUpstreamUnavailable()
}

func (st *stream) add(sub *subscription) {
	st.mu.Lock()
	st.subs[sub] = struct{}{}
	st.mu.Unlock()
}

func (st *stream) remove(sub *subscription) {
	st.mu.Lock()
	delete(st.subs, sub)
	st.mu.Unlock()
}

func (st *stream) stop() { st.stopOnce.Do(func() { close(st.quit) }) }

// run forwards notifications until the stream stops, re-subscribing when the
// upstream subscription ends without being asked to.
func (st *stream) run(c *rpc.Client, sub *rpc.ClientSubscription, ch chan json.RawMessage) {
	for {
		select {
		case raw := <-ch:
			st.deliver(c, raw)
		case err := <-sub.Err():
			slog.Info("subscription: upstream subscription ended, re-subscribing", "kind", st.req.kind, "err", err)
			c, sub, ch = st.resubscribe(c)
			if sub == nil {
				return
			}
		case <-st.quit:
			sub.Unsubscribe()
			return
		}
	}
}

// resubscribe subscribes again, on a new connection, until it works or the
// stream stops (then sub is nil). After a reconnect, newHeads missed while
// down are fetched by number.
func (st *stream) resubscribe(failed *rpc.Client) (*rpc.Client, *rpc.ClientSubscription, chan json.RawMessage) {
	delay := 50 * time.Millisecond
	for {
		select {
		case <-st.quit:
			return nil, nil, nil
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), st.hub.opts.DialTimeout)
		c, err := st.hub.client(ctx, failed)
		if err == nil {
			ch := make(chan json.RawMessage, 64)
			var sub *rpc.ClientSubscription
			sub, err = c.Subscribe(ctx, "eth", ch, st.req.args...)
			if err == nil {
				cancel()
				if st.req.kind == KindNewHeads {
					st.fillToLatest(c)
				}
				return c, sub, ch
			}
			failed = c
		}
		cancel()
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

// deliver passes one upstream notification to every client subscription.
func (st *stream) deliver(c *rpc.Client, raw json.RawMessage) {
	if st.req.kind == KindNewHeads {
		st.deliverHead(c, raw)
		return
	}
	st.fanout(raw)
}

func (st *stream) fanout(raw json.RawMessage) {
	st.mu.Lock()
	for sub := range st.subs {
		sub.client.deliver(sub, raw)
	}
	st.mu.Unlock()
}
