package ingress

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/prometheus/client_golang/prometheus"
)

// ConnLimits bound the connections of the client listeners, so that
// connections that never show a key cannot take the process's descriptors
// (docs/limits.md, "Connections"; ConnGuard closes the idle ones).
type ConnLimits struct {
	// MaxPerListener bounds one listener's open connections (0: none but
	// the shared budget).
	MaxPerListener int
	// MaxPerIP bounds one client address's open connections on a listener
	// that have not shown a valid key (0: none): a connection that has is
	// bounded by its key's plan instead (keyConn gives its place back).
	MaxPerIP int
}

// ConnBudget is the connections every client listener of the process may
// hold together: the descriptors left once those kept in reserve (for the
// key store, Redis, the upstreams, the admin and metrics listeners) are
// set aside. Made once per process.
type ConnBudget struct {
	max  int64
	open atomic.Int64
	// refused counts the connections closed at accept, by the bound that
	// refused them (refusedBy's labels).
	refused   *prometheus.CounterVec
	refusedBy [len(refusalBounds)]prometheus.Counter
}

// The bounds a connection is refused by at accept (the bound label of
// nodegate_connections_refused_total).
type refusal int

const (
	refusedListener refusal = iota // max_per_listener
	refusedAddress                 // max_per_ip
	refusedBudget                  // the descriptor budget
)

var refusalBounds = [...]string{refusedListener: "listener", refusedAddress: "address", refusedBudget: "budget"}

// NewConnBudget allows max connections in all (0: no bound).
func NewConnBudget(max int) *ConnBudget {
	b := &ConnBudget{max: int64(max), refused: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "nodegate_connections_refused_total",
		Help: "Client connections closed as soon as they were accepted, by the bound that refused them: listener (max_per_listener), address (max_per_ip) or budget (the descriptor budget).",
	}, []string{"bound"})}
	for i, label := range refusalBounds {
		b.refusedBy[i] = b.refused.WithLabelValues(label)
	}
	return b
}

// Collectors are the budget's metrics, to register with the service's
// registry (once per process, as the budget is made).
func (b *ConnBudget) Collectors() []prometheus.Collector {
	return []prometheus.Collector{b.refused}
}

// fill is the share of the budget held now (0 without a bound).
func (b *ConnBudget) fill() float64 {
	if b == nil || b.max <= 0 {
		return 0
	}
	return float64(b.open.Load()) / float64(b.max)
}

// Open is the connections held now.
func (b *ConnBudget) Open() int64 { return b.open.Load() }

// Max is the bound (0: none).
func (b *ConnBudget) Max() int64 { return b.max }

// LimitListener wraps a client listener: a connection over any bound is
// closed as soon as it is accepted, before anything is read from it.
func LimitListener(ln net.Listener, lim ConnLimits, budget *ConnBudget) net.Listener {
	return &limitedListener{Listener: ln, lim: lim, budget: budget, perIP: map[netip.Addr]int{}}
}

type limitedListener struct {
	net.Listener
	lim    ConnLimits
	budget *ConnBudget

	mu    sync.Mutex
	open  atomic.Int64 // changed under mu; read without it (pressure)
	perIP map[netip.Addr]int

	// filling is called when a connection is accepted or refused with the
	// bounds at least reapFrom full (ConnGuard.reap; nil: none). Set
	// before the listener serves.
	filling func()
}

// pressure is how full the listener's bounds are: the larger of its own
// bound's share held and the process budget's, from 0 to 1.
func (l *limitedListener) pressure() float64 {
	p := l.budget.fill()
	if max := l.lim.MaxPerListener; max > 0 {
		p = math.Max(p, float64(l.open.Load())/float64(max))
	}
	return p
}

func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		by, ok := l.take(ip)
		if l.filling != nil && l.pressure() >= reapFrom {
			l.filling()
		}
		if !ok {
			_ = c.Close()
			if l.budget != nil {
				l.budget.refusedBy[by].Inc()
			}
			continue
		}
		lc := &limitedConn{Conn: c, l: l, ip: ip}
		lc.countedIP.Store(true)
		return lc, nil
	}
}

// take counts a connection from ip, unless a bound is reached (by).
func (l *limitedListener) take(ip netip.Addr) (by refusal, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lim.MaxPerListener > 0 && l.open.Load() >= int64(l.lim.MaxPerListener) {
		return refusedListener, false
	}
	if l.lim.MaxPerIP > 0 && l.perIP[ip] >= l.lim.MaxPerIP {
		return refusedAddress, false
	}
	if b := l.budget; b != nil {
		if b.open.Add(1) > b.max && b.max > 0 {
			b.open.Add(-1)
			return refusedBudget, false
		}
	}
	l.open.Add(1)
	l.perIP[ip]++
	return 0, true
}

// give returns a closed connection's places; its address's only when it
// still held it (countedIP).
func (l *limitedListener) give(ip netip.Addr, countedIP bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open.Add(-1)
	if countedIP {
		l.giveIPLocked(ip)
	}
	if l.budget != nil {
		l.budget.open.Add(-1)
	}
}

// giveIP returns a connection's place among its address's: it is keyed,
// and its key's plan bounds it from now on.
func (l *limitedListener) giveIP(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.giveIPLocked(ip)
}

func (l *limitedListener) giveIPLocked(ip netip.Addr) {
	if l.perIP[ip] <= 1 {
		delete(l.perIP, ip)
	} else {
		l.perIP[ip]--
	}
}

func remoteIP(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(a.IP)
		return ip.Unmap()
	}
	return netip.Addr{}
}

// limitedConn gives its places back when it is closed (once), and its
// address's place as soon as it is keyed, when it takes its key's.
type limitedConn struct {
	net.Conn
	l         *limitedListener
	ip        netip.Addr
	once      sync.Once
	countedIP atomic.Bool // it holds a place among its address's

	keyMu      sync.Mutex
	closed     bool
	releaseKey func() // its place among its key's connections (nil: none)
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.give(c.ip, c.countedIP.Swap(false))
		c.keyMu.Lock()
		release := c.releaseKey
		c.closed, c.releaseKey = true, nil
		c.keyMu.Unlock()
		if release != nil {
			release()
		}
	})
	return err
}

// keyed gives the address's place back, once, and holds release (its
// place among its key's connections) until the connection closes.
func (c *limitedConn) keyed(release func()) {
	if c.countedIP.Swap(false) {
		c.l.giveIP(c.ip)
	}
	c.keyMu.Lock()
	closed := c.closed
	if !closed {
		c.releaseKey = release
	}
	c.keyMu.Unlock()
	if closed {
		release()
	}
}

// limitedOf is the limitedConn under c (through TLS), or nil.
func limitedOf(c net.Conn) *limitedConn {
	if t, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS
		c = t.NetConn()
	}
	lc, _ := c.(*limitedConn)
	return lc
}

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
