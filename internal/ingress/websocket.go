package ingress

// WebSocket library: github.com/gorilla/websocket. go-ethereum's rpc package
// already depends on it (so it adds nothing to the build), it is mature and
// RFC 6455 complete, and it lets nodegate keep idle connections small: a
// caller-sized read buffer, pooled write buffers (nothing held between
// messages), concurrent-safe WriteControl for pings and close frames, and a
// read limit that answers 1009 by itself.

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// wsRegistry holds the open connections, for shutdown and figures. A
// key's open connections are counted for its plan's max_ws_connections by
// the server's Admission, which every listener and generation share.
type wsRegistry struct {
	upgrader websocket.Upgrader
	mu       sync.Mutex
	conns    map[*wsConn]struct{}
	open     atomic.Int64
	closing  bool
	// stopWatch ends the key watcher (watchKeys) at shutdown.
	stopWatch chan struct{}
}

func (s *Server) initWebSocket() {
	s.WebSocket = s.WebSocket.withDefaults()
	s.ws.conns = make(map[*wsConn]struct{})
	s.ws.upgrader = websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   s.WebSocket.ReadBufferBytes,
		WriteBufferSize:  s.WebSocket.WriteBufferBytes,
		WriteBufferPool:  &sync.Pool{},
		// Origins are a key setting (allowlists), decided like on HTTP, not
		// by the handshake.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	if s.Keys != nil {
		s.ws.stopWatch = make(chan struct{})
		go s.watchKeys(s.ws.stopWatch)
	}
}

// websocket upgrades GET /ws/v3/<key>. The key is checked before the
// upgrade, so a bad key gets the same 401/403 answer as on HTTP.
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	network, routeErr := s.Router.Route(r.Host)
	if routeErr != nil {
		writeError(w, routeErr)
		return
	}
	key, adm, authErr := s.authenticate(r, r.URL.Path, wsPrefix)
	if authErr != nil {
		writeError(w, authErr)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		writeError(w, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "websocket upgrade required: connect with a WebSocket client", Status: http.StatusUpgradeRequired})
		return
	}
	if s.ws.isClosing() {
		writeError(w, jsonrpc.ErrUpstreamUnavailable())
		return
	}
	releaseKey, refused := s.Admission.WebSocket(key)
	if refused != nil {
		writeError(w, refused)
		return
	}
	// An upgraded socket is its key's connection (connguard.go): it holds a
	// place among the key's max_connections until it closes.
	if !s.keyConn(r.Context(), key) {
		releaseKey()
		writeError(w, admission.ErrTooManyConnections(key.Plan.MaxConnections))
		return
	}
	conn, err := s.ws.upgrader.Upgrade(w, r, nil)
	if err != nil {
		releaseKey()
		return // the upgrader has answered the HTTP error
	}
	info := pipeline.ClientInfo{Transport: "ws", Origin: r.Header.Get("Origin"), UserAgent: r.Header.Get("User-Agent"), Remote: r.RemoteAddr, BypassAllowlists: adm.Bypass, Narrow: adm.Narrow}
	c := newWSConn(s, conn, network, key, s.requestOf(r, true), info)
	c.releaseKey = releaseKey
	if !s.ws.add(c) {
		releaseKey()
		c.closeWith(websocket.CloseGoingAway, "server shutting down")
		return
	}
	// The handler returns at once: the HTTP server's goroutine and buffers
	// go, and the connection keeps one reading goroutine of its own.
	go c.readLoop()
}

// isClosing: the server is shutting down, and refuses new connections
// (503).
func (reg *wsRegistry) isClosing() bool {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.closing
}

func (reg *wsRegistry) add(c *wsConn) bool {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.closing {
		return false
	}
	reg.conns[c] = struct{}{}
	reg.open.Add(1)
	return true
}

// list is the open connections at this moment.
func (reg *wsRegistry) list() []*wsConn {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	conns := make([]*wsConn, 0, len(reg.conns))
	for c := range reg.conns {
		conns = append(conns, c)
	}
	return conns
}

func (reg *wsRegistry) remove(c *wsConn) {
	reg.mu.Lock()
	_, ok := reg.conns[c]
	if ok {
		delete(reg.conns, c)
		reg.open.Add(-1)
	}
	reg.mu.Unlock()
	if ok {
		c.releaseKey()
	}
}

// OpenWebSockets is the number of open WebSocket connections.
func (s *Server) OpenWebSockets() int { return int(s.ws.open.Load()) }

// CloseWebSockets refuses new connections and closes the open ones with
// 1001 (going away) once the calls in flight on them have been answered,
// or when ctx ends (shutdown.timeout): messages that arrive meanwhile are
// not answered.
func (s *Server) CloseWebSockets(ctx context.Context) {
	s.ws.mu.Lock()
	if !s.ws.closing && s.ws.stopWatch != nil {
		close(s.ws.stopWatch)
	}
	s.ws.closing = true
	s.ws.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range s.ws.list() {
		wg.Go(func() { c.drainAndClose(ctx) })
	}
	wg.Wait()
	for s.OpenWebSockets() > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
}
