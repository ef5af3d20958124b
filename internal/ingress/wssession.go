package ingress

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

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
		c.subs = c.network.Subs.NewClient(c, c.s.WebSocket.MaxSubscriptions, c)
	}
	return c.subs
}

// TakeSubscription implements subs.Admission: the connection's key's
// subscriptions, and their logs filters' size, are counted across its
// connections against its plan as it is now (Admission.Subscription,
// Admission.SubscriptionFilter).
func (c *wsConn) TakeSubscription(filterSize int) *jsonrpc.Error {
	key := c.key.Load()
	if refused := c.s.Admission.Subscription(key); refused != nil {
		return refused
	}
	if refused := c.s.Admission.SubscriptionFilter(key, filterSize); refused != nil {
		c.s.Admission.GiveSubscriptions(key, 1)
		return refused
	}
	return nil
}

// GiveSubscriptions implements subs.Admission.
func (c *wsConn) GiveSubscriptions(n, filterSize int) {
	key := c.key.Load()
	c.s.Admission.GiveSubscriptions(key, n)
	c.s.Admission.GiveSubscriptionFilter(key, filterSize)
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
	c.openNotes(ctx)
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

// Notify implements subs.Notifier: one eth_subscription message, queued
// for the writer with the subscription's id spliced in (wswriter.go).
func (c *wsConn) Notify(subID string, n *jsonrpc.Notification) {
	c.queueOut(wsOut{note: n, id: subID})
}

// openNotes opens, with the connection's first subscription, the account
// its notifications are charged to.
func (c *wsConn) openNotes(ctx context.Context) {
	c.mu.Lock()
	open := c.notes != nil || c.closed
	c.mu.Unlock()
	if open || c.s.Metering == nil {
		return
	}
	a := c.s.Metering.Notifications(ctx, c.key.Load(), c.network) // may read the limiter
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notes != nil || c.closed {
		a.Close()
		return
	}
	c.notes = a
}
