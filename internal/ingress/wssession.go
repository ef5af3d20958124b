package ingress

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/jsonrpc"
)

// A wsConn is the pipeline's Session for its calls: eth_subscribe and
// eth_unsubscribe reach it after every policy stage has run.

// heldKey marks a message's context; heldIDs collects the subscriptions made
// by that message, released once its answer is queued, so that no
// notification ever precedes the id it belongs to.
type heldKey struct{}

type heldIDs struct {
	mu  sync.Mutex
	ids []string
}

func (h *heldIDs) add(id string) {
	h.mu.Lock()
	h.ids = append(h.ids, id)
	h.mu.Unlock()
}

func (h *heldIDs) release(c *wsConn) {
	if len(h.ids) == 0 {
		return
	}
	cl := c.subsClient()
	for _, id := range h.ids {
		cl.Release(id)
	}
}

func errNoSubscriptions() *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "notifications not supported: this network has no subscription source (an embedded or ws:// upstream)")
}

// subsClient returns the connection's subscription set, made on first use.
func (c *wsConn) subsClient() *subs.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil && c.network.Subs != nil && !c.closed {
		c.subs = c.network.Subs.NewClient(c, c.s.WebSocket.MaxSubscriptions)
	}
	return c.subs
}

func (c *wsConn) subscriptions() int {
	c.mu.Lock()
	cl := c.subs
	c.mu.Unlock()
	if cl == nil {
		return 0
	}
	return cl.Len()
}

// Subscribe implements pipeline.Session.
func (c *wsConn) Subscribe(ctx context.Context, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	cl := c.subsClient()
	if cl == nil {
		if c.network.Subs == nil {
			return nil, errNoSubscriptions()
		}
		return nil, jsonrpc.ErrInternal(errClosed.Error())
	}
	id, err := cl.Subscribe(ctx, params)
	if err != nil {
		return nil, err
	}
	if h, ok := ctx.Value(heldKey{}).(*heldIDs); ok {
		h.add(id)
	} else {
		cl.Release(id)
	}
	return strconv.AppendQuote(make([]byte, 0, len(id)+2), id), nil
}

// Unsubscribe implements pipeline.Session.
func (c *wsConn) Unsubscribe(_ context.Context, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	cl := c.subsClient()
	if cl == nil {
		if c.network.Subs == nil {
			return nil, errNoSubscriptions()
		}
		return nil, subs.ErrSubscriptionNotFound()
	}
	return cl.UnsubscribeParams(params)
}

// Notify implements subs.Notifier: one eth_subscription message, queued.
func (c *wsConn) Notify(subID string, result json.RawMessage) {
	if m := c.s.Metering; m != nil {
		if ok, reason := m.ChargeNotification(c.ctx, c.key.Load(), c.network); !ok {
			// Daily credits spent: a clear close, not a silent stream stop.
			go c.closeWith(websocket.ClosePolicyViolation, reason)
			return
		}
	}
	b := getBuf()
	buf := append((*b)[:0], `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"`...)
	buf = append(buf, subID...)
	buf = append(buf, `","result":`...)
	buf = append(buf, result...)
	*b = append(buf, "}}"...)
	c.enqueue(b)
}
