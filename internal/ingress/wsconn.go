package ingress

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Close codes nodegate sends (RFC 6455, section 7.4.1).
const (
	closeSlowReader     = websocket.ClosePolicyViolation         // 1008: send queue full
	closeInvalidPayload = websocket.CloseInvalidFramePayloadData // 1007: a message that is not UTF-8
)

// wsConn is one client WebSocket. It has one goroutine of its own (the
// reader); each message is answered on a goroutine that lives as long as the
// call, and a writer goroutine exists only while something is queued.
type wsConn struct {
	s       *Server
	ws      *websocket.Conn
	network *pipeline.Network
	// keyID and keyReq find and admit the socket's key again for every
	// message (wsauth.go); key is the record last admitted.
	keyID  string
	keyReq keys.Request
	key    atomic.Pointer[keys.Key]
	info   pipeline.ClientInfo
	// releaseKey gives the connection's place in its key's
	// max_ws_connections back (Admission.WebSocket) when it is removed.
	releaseKey func()

	ctx    context.Context
	cancel context.CancelFunc

	inflight     atomic.Int32
	dead         atomic.Bool   // closing: messages are read and dropped
	draining     atomic.Bool   // shutting down: new messages are dropped, calls in flight finish
	slots        chan struct{} // one per message being answered (MaxInFlight)
	lastActivity atomic.Int64  // unix nanoseconds of the last client message
	ping         *time.Timer

	// The send queue (wswriter.go), the subscriptions and the account
	// their notifications are charged to (opened with the first).
	mu      sync.Mutex
	queue   []wsOut
	queued  int
	writing bool
	closed  bool
	subs    *subs.Client
	notes   *ratelimit.NoteAccount

	closeOnce sync.Once
}

func newWSConn(s *Server, conn *websocket.Conn, network *pipeline.Network, key *keys.Key, req keys.Request, info pipeline.ClientInfo) *wsConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &wsConn{s: s, ws: conn, network: network, keyID: key.ID, keyReq: req, info: info, ctx: ctx, cancel: cancel, slots: make(chan struct{}, s.WebSocket.MaxInFlight)}
	c.key.Store(key)
	c.lastActivity.Store(time.Now().UnixNano())
	conn.SetReadLimit(s.WebSocket.MaxMessageBytes)
	conn.SetPongHandler(func(string) error { c.extendDeadline(); return nil })
	c.ping = time.AfterFunc(s.WebSocket.PingInterval, c.tick)
	return c
}

var msgPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuf() *[]byte { return msgPool.Get().(*[]byte) }

// putBuf recycles a message buffer (see recycle).
func putBuf(b *[]byte) { recycle(&msgPool, b) }

func (c *wsConn) extendDeadline() {
	if c.dead.Load() {
		return // the closing handshake's deadline stands
	}
	l := &c.s.WebSocket
	_ = c.ws.SetReadDeadline(time.Now().Add(l.PingInterval + l.PongTimeout))
}

// readLoop reads messages until the connection ends. Text and binary
// messages are both read as JSON, as go-ethereum does.
func (c *wsConn) readLoop() {
	defer c.shutdown()
	for {
		c.extendDeadline()
		_, rd, err := c.ws.NextReader()
		if err != nil {
			return
		}
		c.lastActivity.Store(time.Now().UnixNano())
		bp := getBuf()
		body, err := readLimited(rd, (*bp)[:0], c.s.WebSocket.MaxMessageBytes)
		*bp = body
		if err != nil {
			putBuf(bp)
			return // over the limit: gorilla has sent 1009; or the connection broke
		}
		if c.dead.Load() {
			putBuf(bp) // closing: drain what the client still sends, answer nothing
			continue
		}
		if !utf8.Valid(body) {
			// RFC 6455: text must be UTF-8, and JSON is; an id or method
			// with invalid bytes must not come back in a text frame.
			putBuf(bp)
			c.closeWith(closeInvalidPayload, jsonrpc.MsgNotUTF8)
			continue
		}
		// At MaxInFlight the reader waits for a call to finish before it
		// reads on: the client is slowed by TCP, nothing piles up here.
		select {
		case c.slots <- struct{}{}:
		case <-c.ctx.Done():
			putBuf(bp)
			return
		}
		c.inflight.Add(1)
		if c.draining.Load() { // after the count: drainAndClose sees this call or it is dropped
			c.inflight.Add(-1)
			<-c.slots
			putBuf(bp)
			continue
		}
		go c.handle(bp)
	}
}

// handle answers one message through the same path as HTTP.
func (c *wsConn) handle(bp *[]byte) {
	defer func() {
		c.inflight.Add(-1)
		<-c.slots
	}()
	key, adm, refused := c.admitCurrent()
	if refused != nil {
		putBuf(bp)
		c.refuseKey(refused)
		return
	}
	c.s.Keys.Used(key) // last_used_at, as an HTTP request's lookup
	info := c.info
	info.BypassAllowlists, info.Narrow = adm.Bypass, adm.Narrow
	var held heldIDs
	ctx := context.WithValue(c.ctx, heldKey{}, &held)
	out := getBuf()
	*out, _, _ = c.s.serveBody(ctx, (*out)[:0], *bp, c.network, key, info, c)
	putBuf(bp)
	if len(*out) == 0 { // notifications only: no message
		putBuf(out)
	} else {
		c.enqueue(out)
	}
	held.release(c)
}

// tick pings the client, and closes a connection idle for too long.
func (c *wsConn) tick() {
	l := &c.s.WebSocket
	idle := time.Since(time.Unix(0, c.lastActivity.Load()))
	if idle > l.IdleTimeout && c.inflight.Load() == 0 && c.subscriptions() == 0 {
		c.closeWith(websocket.CloseNormalClosure, "idle timeout")
		return
	}
	if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(l.WriteTimeout)); err != nil {
		c.closeWith(websocket.CloseAbnormalClosure, "")
		return
	}
	c.mu.Lock()
	if !c.closed {
		c.ping.Reset(l.PingInterval)
	}
	c.mu.Unlock()
}

// closeWith starts the closing handshake: drop what is queued, send a
// close frame (1006 is never sent: it closes at once), and give the client
// a grace period to answer it while the reader drains its input, so that
// the close frame is not lost to a TCP reset. The reader's exit closes
// the socket.
func (c *wsConn) closeWith(code int, reason string) {
	c.closeOnce.Do(func() {
		c.dead.Store(true)
		c.mu.Lock()
		c.closed = true
		c.dropQueueLocked()
		c.mu.Unlock()
		if code == websocket.CloseAbnormalClosure {
			_ = c.ws.Close()
			return
		}
		// Waits for a message being written to finish (a slow reader that
		// does read gets its close code), at most WriteTimeout.
		grace := c.s.WebSocket.WriteTimeout
		msg := websocket.FormatCloseMessage(code, reason)
		if err := c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(grace)); err != nil {
			_ = c.ws.Close()
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(grace))
	})
}

// drainAndClose is the connection's part of a shutdown: messages that
// arrive from now on are not answered, the calls in flight finish and their
// answers are written out, until ctx ends (shutdown.timeout); then the
// connection is closed with 1001 (going away).
func (c *wsConn) drainAndClose(ctx context.Context) {
	c.draining.Store(true)
	for ctx.Err() == nil && (c.inflight.Load() > 0 || c.sending()) {
		select {
		case <-ctx.Done():
		case <-c.ctx.Done():
			return // the connection ended by itself
		case <-time.After(10 * time.Millisecond):
		}
	}
	c.closeWith(websocket.CloseGoingAway, "server shutting down")
}

// sending reports whether answers are still queued or being written.
func (c *wsConn) sending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writing || len(c.queue) > 0
}

// shutdown runs when the reader stops: cancel calls in flight, end the
// subscriptions, release the connection.
func (c *wsConn) shutdown() {
	c.ping.Stop()
	c.cancel()
	c.closeWith(websocket.CloseAbnormalClosure, "")
	_ = c.ws.Close()
	c.mu.Lock()
	cl := c.subs
	c.mu.Unlock()
	if cl != nil {
		cl.Close()
	}
	c.mu.Lock()
	notes := c.notes // kept: a write in flight still counts on it
	c.mu.Unlock()
	notes.Close()
	c.s.ws.remove(c)
}

var errClosed = errors.New("connection closed")
