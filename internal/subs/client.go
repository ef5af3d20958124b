package subs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Notifier receives a client's notifications. Notify must not block and
// must do no I/O: the transport queues the message (and closes a client
// that falls too far behind); its writer writes it. The message is shared
// by every subscription of the stream: the transport splices subID in.
type Notifier interface {
	Notify(subID string, n *jsonrpc.Notification)
}

// Admission bounds a client's subscriptions beyond its own max: the
// transport's rule (nodegate's ingress counts each key's subscriptions,
// and the size of their logs filters, across its connections, listeners
// and reloads against its plan). Take counts one more subscription whose
// filter holds filterSize addresses and topic values (0 for newHeads…)
// or refuses it with the answer to give; Give gives back n subscriptions
// whose filters held filterSize together. Neither may block or do I/O:
// they are called under the client's lock.
type Admission interface {
	TakeSubscription(filterSize int) *jsonrpc.Error
	GiveSubscriptions(n, filterSize int)
}

// Client is one client connection's set of subscriptions.
type Client struct {
	hub *Hub
	n   Notifier
	max int
	// admit counts the client's subscriptions beyond max (nil: not
	// counted).
	admit Admission

	mu     sync.Mutex
	subs   map[string]*subscription
	closed bool
}

type subscription struct {
	id         string
	filterSize int // counted with the client's Admission
	client     *Client
	stream     *stream
	// held: the eth_subscribe answer is not on the wire yet; notifications
	// wait in pending so the client never sees one before the id.
	held    bool
	pending []*jsonrpc.Notification
	gone    bool
}

// NewClient makes the subscription set of one connection, allowed at most
// maxSubs subscriptions at once, and what admit allows (nil: no more
// bound); every subscription admit took is given back when it ends.
func (h *Hub) NewClient(n Notifier, maxSubs int, admit Admission) *Client {
	return &Client{hub: h, n: n, max: maxSubs, admit: admit, subs: make(map[string]*subscription)}
}

// take counts one more subscription, of a filter of filterSize, with the
// client's Admission.
func (c *Client) take(filterSize int) *jsonrpc.Error {
	if c.admit == nil {
		return nil
	}
	return c.admit.TakeSubscription(filterSize)
}

// give gives n subscriptions, of filters of filterSize together, back to
// the client's Admission.
func (c *Client) give(n, filterSize int) {
	if c.admit == nil || n == 0 {
		return
	}
	c.admit.GiveSubscriptions(n, filterSize)
}

// ErrSubscriptionNotFound is go-ethereum's answer to an unknown id.
func ErrSubscriptionNotFound() *jsonrpc.Error {
	return jsonrpc.NewError(-32000, "subscription not found")
}

// Subscribe starts a subscription and returns its id. The subscription is
// held: its notifications are kept until Release(id), which the transport
// calls once the answer carrying the id has been queued. Past the
// client's max, or when its Admission refuses, it answers the refusal.
func (c *Client) Subscribe(ctx context.Context, params json.RawMessage) (string, *jsonrpc.Error) {
	req, perr := parseSubscribe(params)
	if perr != nil {
		return "", perr
	}
	sub := &subscription{id: newID(), filterSize: req.filterSize, client: c, held: true}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return "", jsonrpc.ErrInternal("connection closed")
	case len(c.subs) >= c.max:
		c.mu.Unlock()
		return "", jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("too many subscriptions on this connection (limit %d)", c.max))
	}
	if err := c.take(sub.filterSize); err != nil {
		c.mu.Unlock()
		return "", err
	}
	c.subs[sub.id] = sub
	c.mu.Unlock()
	st, err := c.hub.join(ctx, req, sub)
	c.mu.Lock()
	if err != nil {
		delete(c.subs, sub.id)
		c.mu.Unlock()
		c.give(1, sub.filterSize)
		return "", err
	}
	sub.stream = st
	if c.closed { // closed while joining: Close could not see the stream (nor give back its count)
		c.mu.Unlock()
		c.give(1, sub.filterSize)
		c.hub.leave(st, sub)
		return "", jsonrpc.ErrInternal("connection closed")
	}
	c.mu.Unlock()
	c.hub.stats.subs.Add(1)
	return sub.id, nil
}

// Release lets a held subscription's notifications flow, oldest first.
func (c *Client) Release(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sub := c.subs[id]
	if sub == nil || !sub.held {
		return
	}
	sub.held = false
	for _, n := range sub.pending {
		c.n.Notify(sub.id, n)
	}
	c.hub.stats.sent.Add(uint64(len(sub.pending)))
	sub.pending = nil
}

// Unsubscribe ends the subscription with the given id.
func (c *Client) Unsubscribe(id string) *jsonrpc.Error {
	c.mu.Lock()
	sub := c.subs[id]
	if sub == nil || sub.stream == nil {
		c.mu.Unlock()
		return ErrSubscriptionNotFound()
	}
	delete(c.subs, id)
	sub.gone = true
	c.mu.Unlock()
	c.give(1, sub.filterSize)
	c.hub.stats.subs.Add(-1)
	c.hub.leave(sub.stream, sub)
	return nil
}

// UnsubscribeParams is Unsubscribe for raw eth_unsubscribe params; it
// answers true, as go-ethereum does.
func (c *Client) UnsubscribeParams(params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	id, err := parseUnsubscribe(params)
	if err != nil {
		return nil, err
	}
	if err := c.Unsubscribe(id); err != nil {
		return nil, err
	}
	return json.RawMessage("true"), nil
}

// Len is the number of live subscriptions.
func (c *Client) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.subs)
}

// Close ends every subscription of the connection.
func (c *Client) Close() {
	c.mu.Lock()
	c.closed = true
	subs := c.subs
	c.subs = make(map[string]*subscription)
	for _, s := range subs {
		s.gone = true
	}
	c.mu.Unlock()
	joined, filterSize := 0, 0
	for _, s := range subs {
		if s.stream != nil {
			joined++
			filterSize += s.filterSize
			c.hub.stats.subs.Add(-1)
			c.hub.leave(s.stream, s)
		}
	}
	c.give(joined, filterSize) // one still joining gives its own back (Subscribe)
}

// deliver is called by a stream's fan-out, which holds none of the hub's
// locks. The client's own lock orders the notification against Release
// and Unsubscribe (none follows the eth_unsubscribe answer).
func (c *Client) deliver(sub *subscription, n *jsonrpc.Notification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case sub.gone:
	case sub.held:
		if len(sub.pending) < c.hub.opts.MaxHeld {
			sub.pending = append(sub.pending, n)
		} else {
			c.hub.stats.dropped.Add(1)
			slog.Warn("subscription: notification dropped while the subscribe answer was pending", "limit", c.hub.opts.MaxHeld)
		}
	default:
		c.hub.stats.sent.Add(1)
		c.n.Notify(sub.id, n)
	}
}

// newID makes a subscription id in go-ethereum's shape: 0x + 32 hex digits.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "0x" + hex.EncodeToString(b[:])
}
