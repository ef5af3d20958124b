package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// wsSubBuffer is how many notifications a subscription holds for its
// reader; a reader that falls further behind loses the subscription (as
// go-ethereum's own client does), rather than stall the connection's
// answers.
const wsSubBuffer = 1024

// wsSub is one subscription on a connection.
type wsSub struct {
	id  string // the node's subscription id, set when registered
	c   chan json.RawMessage
	sub *upstream.Subscription
}

var errSubscriberBehind = errors.New("subscription reader fell behind")

// Subscribe implements Subscriber: eth_subscribe over the connection that
// also carries the member's calls. Its notifications are routed by the
// node's subscription id; a dropped connection ends the subscription with
// an error.
func (w *WS) Subscribe(ctx context.Context, params json.RawMessage) (*upstream.Subscription, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.opts.Timeout)
		defer cancel()
	}
	msg, p, err := w.rewrite(jsonrpc.AppendRequest(nil, 1, "eth_subscribe", params))
	if err != nil {
		return nil, &upstream.Error{Upstream: w.name, Err: err}
	}
	ch := make(chan json.RawMessage, wsSubBuffer)
	s := &wsSub{c: ch}
	p.sub = s
	c, err := w.connection(ctx)
	if err != nil {
		return nil, &upstream.Error{Upstream: w.name, Err: err}
	}
	s.sub = upstream.NewSubscription(ch, func() { c.unsubscribe(w, s) })
	if err := c.send(msg, p); err != nil {
		return nil, &upstream.Error{Upstream: w.name, Err: err}
	}
	select {
	case r := <-p.done:
		if r.err != nil {
			return nil, &upstream.Error{Upstream: w.name, Err: r.err}
		}
		_, resp, err := jsonrpc.DecodeResponse(r.body)
		switch {
		case err != nil:
			return nil, &upstream.Error{Upstream: w.name, Err: err}
		case resp.Err != nil:
			return nil, resp.Err // the node's answer: a bad filter, an unknown kind
		case s.id == "":
			return nil, &upstream.Error{Upstream: w.name, Err: fmt.Errorf("eth_subscribe answered %.100s, not a subscription id", resp.Result)}
		}
		return s.sub, nil
	case <-ctx.Done():
		c.forget(p)
		s.sub.Unsubscribe() // in case the answer was read meanwhile
		return nil, &upstream.Error{Upstream: w.name, Err: fmt.Errorf("eth_subscribe: %w", ctx.Err())}
	}
}

// register files s under the subscription id that msg (the answer to its
// eth_subscribe) carries. The read loop calls it, under c.mu, before
// reading the next message.
func (c *wsUpConn) register(s *wsSub, msg []byte) {
	_, resp, err := jsonrpc.DecodeResponse(msg)
	if err != nil || resp.Err != nil {
		return
	}
	var id string
	if json.Unmarshal(resp.Result, &id) != nil || id == "" {
		return
	}
	s.id = id
	c.subs[id] = s
}

var subscriptionMethod = []byte(`"eth_subscription"`)

// notify hands one eth_subscription notification to its subscription.
func (c *wsUpConn) notify(msg []byte) {
	if !bytes.Contains(msg, subscriptionMethod) {
		return
	}
	var n struct {
		Method string `json:"method"`
		Params struct {
			Subscription string          `json:"subscription"`
			Result       json.RawMessage `json:"result"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &n) != nil || n.Method != "eth_subscription" {
		return
	}
	c.mu.Lock()
	s := c.subs[n.Params.Subscription]
	c.mu.Unlock()
	if s == nil {
		return // ended meanwhile
	}
	select {
	case s.c <- n.Params.Result:
	default:
		c.mu.Lock()
		delete(c.subs, s.id)
		c.mu.Unlock()
		s.sub.End(errSubscriberBehind)
		go c.sendUnsubscribe(nil, s.id)
	}
}

// unsubscribe forgets s and tells the node (without waiting for its answer).
func (c *wsUpConn) unsubscribe(w *WS, s *wsSub) {
	c.mu.Lock()
	registered := s.id != "" && c.subs[s.id] == s
	if registered {
		delete(c.subs, s.id)
	}
	c.mu.Unlock()
	if registered {
		go c.sendUnsubscribe(w, s.id)
	}
}

// sendUnsubscribe writes eth_unsubscribe; its answer matches no pending
// request and is dropped.
func (c *wsUpConn) sendUnsubscribe(w *WS, id string) {
	if c.isDead() {
		return
	}
	reqID := uint64(0) // never a request's id: connection ids start at 1
	if w != nil {
		reqID = w.nextID.Add(1)
	}
	msg := jsonrpc.AppendRequest(nil, reqID, "eth_unsubscribe", json.RawMessage(`[`+strconv.Quote(id)+`]`))
	c.wmu.Lock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	err := c.ws.WriteMessage(websocket.TextMessage, msg)
	c.wmu.Unlock()
	if err != nil {
		c.fail(fmt.Errorf("write: %w", err))
	}
}
