package ingress

import (
	"context"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// ConnGuard closes connections that stay idle (nothing sent yet, or
// between requests) for its idle time before they are keyed (keyConn);
// after that the server's own idle timeout applies, shortened as the
// listener's bounds fill (keyedIdle): whenever the listener accepts or
// refuses a connection with its bounds at least reapFrom full, the guard
// closes the keyed connections idle for longer than keyedIdle (reap). Its
// ConnContext and ConnState are the http.Server's hooks.
type ConnGuard struct {
	idle time.Duration
	// serverIdle is the server's own idle timeout, which a keyed
	// connection has while the bounds are less than reapFrom full.
	serverIdle time.Duration
	// pressure is how full the listener's bounds are (0 to 1); nil: never.
	pressure func() float64
	// lastReap is when the last reap started (unix nanoseconds): one at a
	// time, at most one per reapEvery.
	lastReap atomic.Int64
	// conns holds each open connection's mark (net.Conn → *connMark): the
	// ConnState hook is given only the connection. A sync.Map, so that the
	// lookup on every request's state change takes no lock shared by all
	// connections.
	conns sync.Map
}

// NewConnGuard closes keyless connections idle for idle (0: never), and
// keyed ones sooner than serverIdle (the http.Server's IdleTimeout) once
// ln's bounds are filling (ln made by LimitListener; else never).
func NewConnGuard(idle, serverIdle time.Duration, ln net.Listener) *ConnGuard {
	g := &ConnGuard{idle: idle, serverIdle: serverIdle}
	if l, ok := ln.(*limitedListener); ok && idle > 0 {
		g.pressure = l.pressure
		l.filling = g.reap
	}
	return g
}

// reapFrom is how full the bounds are when keyed idle connections start
// to be closed sooner than the server's idle timeout.
const reapFrom = 0.5

// keyedIdle is how long a keyed connection may stay idle now: 0 (the
// server's own timeout) while the bounds are less than reapFrom full, then
// from the server's timeout down to the keyless idle time when they are
// full.
func (g *ConnGuard) keyedIdle() time.Duration {
	if g.pressure == nil || g.serverIdle <= g.idle {
		return 0
	}
	p := g.pressure()
	if p < reapFrom {
		return 0
	}
	left := math.Max(0, 1-p) / (1 - reapFrom)
	return g.idle + time.Duration(float64(g.serverIdle-g.idle)*left)
}

// reap closes, on a goroutine of its own, the keyed connections idle for
// longer than keyedIdle; at most once per reapEvery.
func (g *ConnGuard) reap() {
	now := time.Now().UnixNano()
	last := g.lastReap.Load()
	if now-last < int64(g.reapEvery()) || !g.lastReap.CompareAndSwap(last, now) {
		return
	}
	go func() {
		d := g.keyedIdle()
		if d <= 0 {
			return
		}
		before := time.Now().Add(-d).UnixNano()
		g.conns.Range(func(_, v any) bool {
			m := v.(*connMark)
			if since := m.idleSince.Load(); since != 0 && since <= before {
				_ = m.conn.Close()
			}
			return true
		})
	}()
}

// reapEvery is how often reap walks the connections at most.
func (g *ConnGuard) reapEvery() time.Duration { return max(g.idle/4, 10*time.Millisecond) }

type connMarkKey struct{}

// connMark is one connection's state for the guard.
type connMark struct {
	conn    net.Conn
	keySeen atomic.Bool
	keyMu   sync.Mutex // keyConn's, so that two HTTP/2 streams key it once
	mu      sync.Mutex
	timer   *time.Timer
	idle    bool // the timer may close the connection
	// idleSince is when a keyed connection went idle (unix nanoseconds;
	// 0: it is not idle), for reap.
	idleSince atomic.Int64
}

// ConnContext is the http.Server hook: the connection's mark rides in
// every request's context.
func (g *ConnGuard) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if g == nil {
		return ctx
	}
	m := &connMark{conn: c}
	if g.idle > 0 { // else no timer: the mark only gives the address's place back
		g.conns.Store(c, m)
	}
	return context.WithValue(ctx, connMarkKey{}, m)
}

// ConnState is the http.Server hook: a keyless connection that goes idle
// is closed after the guard's idle time unless a request starts first; a
// keyed one records when it went idle, for reap.
func (g *ConnGuard) ConnState(c net.Conn, st http.ConnState) {
	if g == nil || g.idle <= 0 {
		return
	}
	v, ok := g.conns.Load(c)
	if !ok {
		return
	}
	m := v.(*connMark)
	switch {
	case st == http.StateClosed || st == http.StateHijacked:
		g.conns.Delete(c)
		m.disarm()
	case m.keySeen.Load():
		// Keyed: its timer, stopped when the request that keyed it began,
		// is never armed again; reap closes it when the bounds fill.
		if st == http.StateIdle {
			m.idleSince.Store(time.Now().UnixNano())
		} else {
			m.idleSince.Store(0)
		}
	case st == http.StateNew || st == http.StateIdle:
		m.arm(g.idle)
	default:
		m.disarm()
	}
}

func (m *connMark) arm(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idle = true
	if m.timer == nil {
		m.timer = time.AfterFunc(d, m.expire)
		return
	}
	m.timer.Reset(d)
}

func (m *connMark) disarm() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idle = false
	if m.timer != nil {
		m.timer.Stop()
	}
}

// expire closes the connection if it is still idle and keyless.
func (m *connMark) expire() {
	m.mu.Lock()
	shut := m.idle && !m.keySeen.Load()
	m.mu.Unlock()
	if shut {
		_ = m.conn.Close()
	}
}

// keyConn records that a request on the connection of ctx was admitted
// for key (its rate and credits, and charged) or a WebSocket of key
// upgraded on it: from now on the connection has the server's own idle
// timeout, no longer counts against its address's bound, and holds a
// place among key's connections (its plan's max_connections) until it
// closes. keep is false when key has no place left: the connection stays
// keyless, and the caller closes it after its answer (or refuses the
// upgrade). A connection is keyed once, to the first key admitted on it.
func (s *Server) keyConn(ctx context.Context, key *keys.Key) (keep bool) {
	m, ok := ctx.Value(connMarkKey{}).(*connMark)
	if !ok || m.keySeen.Load() {
		return true
	}
	m.keyMu.Lock()
	defer m.keyMu.Unlock()
	if m.keySeen.Load() {
		return true
	}
	if lc := limitedOf(m.conn); lc != nil {
		release, refused := s.Admission.Connection(key)
		if refused != nil {
			return false
		}
		lc.keyed(release)
	}
	m.keySeen.Store(true)
	return true
}
