package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// WSOptions tune a WebSocket upstream. Zero values take the defaults.
type WSOptions struct {
	// TLS is the client TLS configuration for wss:// (default: system roots).
	TLS *tls.Config
	// MaxInFlight bounds the requests waiting for an answer (default 1024);
	// further callers wait for a slot or their context.
	MaxInFlight int
	// Timeout bounds a request whose context has no deadline (default 60s).
	Timeout time.Duration
	// RedialDelay is the least time between two dial attempts (default 500ms).
	RedialDelay time.Duration
}

// WS is a node reached over ws:// or wss://: every request shares one
// connection, its ids rewritten to the connection's own and restored in the
// answer, so that callers' ids never collide. A dropped connection fails the
// requests in flight (as node faults, retryable elsewhere) and is dialled
// again by the next request.
type WS struct {
	url    string
	name   string
	opts   WSOptions
	dialer websocket.Dialer
	slots  chan struct{}
	nextID atomic.Uint64

	mu       sync.Mutex
	conn     *wsUpConn
	nextDial time.Time
	dialErr  error
}

// NewWS makes a WebSocket upstream. Name() shows only scheme and host.
func NewWS(rawURL string, opts WSOptions) (*WS, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("upstream url: %w", err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, fmt.Errorf("upstream url %q: scheme must be ws or wss", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("upstream url %q: no host", u.Redacted())
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 1024
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.RedialDelay <= 0 {
		opts.RedialDelay = 500 * time.Millisecond
	}
	return &WS{
		url: rawURL, name: u.Scheme + "://" + u.Host, opts: opts,
		dialer: websocket.Dialer{HandshakeTimeout: 10 * time.Second, TLSClientConfig: opts.TLS, ReadBufferSize: 32 << 10, WriteBufferSize: 32 << 10},
		slots:  make(chan struct{}, opts.MaxInFlight),
	}, nil
}

// Name implements Upstream.
func (w *WS) Name() string { return w.name }

// URL is the upstream's address (with any credentials it was given).
func (w *WS) URL() string { return w.url }

// Close drops the connection; requests in flight fail.
func (w *WS) Close() {
	w.mu.Lock()
	c := w.conn
	w.conn = nil
	w.mu.Unlock()
	if c != nil {
		c.fail(errors.New("upstream closed"))
	}
}

// Do implements Upstream.
func (w *WS) Do(ctx context.Context, body []byte) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.opts.Timeout)
		defer cancel()
	}
	select {
	case w.slots <- struct{}{}:
		defer func() { <-w.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	msg, p, err := w.rewrite(body)
	if err != nil {
		return nil, &upstream.Error{Upstream: w.name, Err: err}
	}
	c, err := w.connection(ctx)
	if err != nil {
		return nil, &upstream.Error{Upstream: w.name, Err: err}
	}
	if err := c.send(msg, p); err != nil {
		return nil, &upstream.Error{Upstream: w.name, Err: err}
	}
	select {
	case r := <-p.done:
		if r.err != nil {
			return nil, &upstream.Error{Upstream: w.name, Err: r.err}
		}
		return r.body, nil
	case <-ctx.Done():
		c.forget(p)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &upstream.Error{Upstream: w.name, Err: fmt.Errorf("no answer in time: %w", ctx.Err())}
		}
		return nil, ctx.Err()
	}
}

// connection returns the live connection, dialling one when there is none
// (at most once per RedialDelay, so a dead node is not hammered).
func (w *WS) connection(ctx context.Context) (*wsUpConn, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil && !w.conn.isDead() {
		return w.conn, nil
	}
	if time.Now().Before(w.nextDial) && w.dialErr != nil {
		return nil, w.dialErr
	}
	w.nextDial = time.Now().Add(w.opts.RedialDelay)
	ws, _, err := w.dialer.DialContext(ctx, w.url, nil)
	if err != nil {
		w.dialErr = fmt.Errorf("dial: %w", err)
		return nil, w.dialErr
	}
	ws.SetReadLimit(MaxResponseBytes)
	w.dialErr = nil
	w.conn = &wsUpConn{ws: ws, pending: make(map[uint64]*wsPending), subs: make(map[string]*wsSub)}
	go w.conn.readLoop()
	return w.conn, nil
}

// wsPending is one request (or batch) waiting for its answer.
type wsPending struct {
	ids  []uint64          // the connection ids of its calls
	orig map[uint64][]byte // connection id → caller's id bytes
	done chan wsResult
	// sub, for an eth_subscribe, is registered under the node's
	// subscription id as its answer is read (ws_subscribe.go), so that no
	// notification that follows the answer is lost.
	sub *wsSub
}

type wsResult struct {
	body []byte
	err  error
}

// rewrite gives every call of body a connection id and remembers the
// caller's id. The caller's body is not modified.
func (w *WS) rewrite(body []byte) ([]byte, *wsPending, error) {
	msgs, _, perr := jsonrpc.Parse(body, 1<<20)
	if perr != nil {
		return nil, nil, fmt.Errorf("request body: %s", perr.Message)
	}
	p := &wsPending{orig: make(map[uint64][]byte, len(msgs)), done: make(chan wsResult, 1)}
	out := make([]byte, 0, len(body)+16*len(msgs))
	last := 0
	for _, m := range msgs {
		off, ok := offsetIn(body, m.Req.ID)
		if !ok || m.Err != nil {
			return nil, nil, errors.New("request body: every call needs a valid id")
		}
		id := w.nextID.Add(1)
		p.ids = append(p.ids, id)
		p.orig[id] = append([]byte(nil), m.Req.ID...)
		out = append(out, body[last:off]...)
		out = strconv.AppendUint(out, id, 10)
		last = off + len(m.Req.ID)
	}
	return append(out, body[last:]...), p, nil
}

// offsetIn is where sub starts inside b, when sub is a slice of b.
func offsetIn(b, sub []byte) (int, bool) {
	if len(sub) == 0 {
		return 0, false
	}
	off := cap(b) - cap(sub)
	if off < 0 || off+len(sub) > len(b) || &b[off] != &sub[0] {
		return 0, false
	}
	return off, true
}

// wsUpConn is one connection to the node.
type wsUpConn struct {
	ws  *websocket.Conn
	wmu sync.Mutex // one writer at a time

	mu      sync.Mutex
	pending map[uint64]*wsPending
	subs    map[string]*wsSub // by the node's subscription id
	dead    bool
	deadErr error
}

func (c *wsUpConn) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *wsUpConn) send(msg []byte, p *wsPending) error {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return c.deadErr
	}
	for _, id := range p.ids {
		c.pending[id] = p
	}
	c.mu.Unlock()
	c.wmu.Lock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	err := c.ws.WriteMessage(websocket.TextMessage, msg)
	c.wmu.Unlock()
	if err != nil {
		c.fail(fmt.Errorf("write: %w", err))
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func (c *wsUpConn) forget(p *wsPending) {
	c.mu.Lock()
	for _, id := range p.ids {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// fail ends the connection and every request waiting on it.
func (c *wsUpConn) fail(err error) {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return
	}
	c.dead, c.deadErr = true, fmt.Errorf("connection lost: %w", err)
	pending, subs := c.pending, c.subs
	c.pending, c.subs = nil, nil
	c.mu.Unlock()
	_ = c.ws.Close()
	for _, s := range subs {
		s.sub.End(c.deadErr)
	}
	seen := make(map[*wsPending]bool, len(pending))
	for _, p := range pending {
		if !seen[p] {
			seen[p] = true
			p.done <- wsResult{err: c.deadErr}
		}
	}
}

func (c *wsUpConn) readLoop() {
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			c.fail(err)
			return
		}
		c.dispatch(msg)
	}
}

// dispatch restores the callers' ids in an answer and hands it over.
// Notifications go to their subscription (ws_subscribe.go); other messages
// that answer nothing of ours are dropped.
func (c *wsUpConn) dispatch(msg []byte) {
	type span struct {
		off, n int
		id     uint64
	}
	var spans []span
	collect := func(obj []byte) bool {
		id, _, err := jsonrpc.DecodeResponse(obj)
		if err != nil {
			return true
		}
		n, perr := strconv.ParseUint(string(id), 10, 64)
		off, ok := offsetIn(msg, id)
		if perr == nil && ok {
			spans = append(spans, span{off, len(id), n})
		}
		return true
	}
	if jsonrpc.IsBatch(msg) {
		_ = jsonrpc.Elements(msg, collect)
	} else {
		collect(msg)
	}
	if len(spans) == 0 {
		c.notify(msg)
		return
	}
	c.mu.Lock()
	p := c.pending[spans[0].id]
	if p != nil {
		for _, id := range p.ids {
			delete(c.pending, id)
		}
		if p.sub != nil {
			c.register(p.sub, msg)
		}
	}
	c.mu.Unlock()
	if p == nil {
		return // its caller gave up
	}
	out := make([]byte, 0, len(msg)+32)
	last := 0
	for _, s := range spans {
		orig, ok := p.orig[s.id]
		if !ok {
			continue
		}
		out = append(out, msg[last:s.off]...)
		out = append(out, orig...)
		last = s.off + s.n
	}
	p.done <- wsResult{body: append(out, msg[last:]...)}
}
