package ingress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
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
	// bounded by its key's plan instead (markKeySeen gives its place back).
	MaxPerIP int
}

// ConnBudget is the connections every client listener of the process may
// hold together: the descriptors left once those kept in reserve (for the
// key store, Redis, the upstreams, the admin and metrics listeners) are
// set aside. Made once per process.
type ConnBudget struct {
	max  int64
	open atomic.Int64
}

// NewConnBudget allows max connections in all (0: no bound).
func NewConnBudget(max int) *ConnBudget { return &ConnBudget{max: int64(max)} }

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
	open  int
	perIP map[netip.Addr]int
}

func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		if !l.take(ip) {
			_ = c.Close()
			continue
		}
		lc := &limitedConn{Conn: c, l: l, ip: ip}
		lc.countedIP.Store(true)
		return lc, nil
	}
}

// take counts a connection from ip, unless a bound is reached.
func (l *limitedListener) take(ip netip.Addr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lim.MaxPerListener > 0 && l.open >= l.lim.MaxPerListener ||
		l.lim.MaxPerIP > 0 && l.perIP[ip] >= l.lim.MaxPerIP {
		return false
	}
	if b := l.budget; b != nil {
		if b.open.Add(1) > b.max && b.max > 0 {
			b.open.Add(-1)
			return false
		}
	}
	l.open++
	l.perIP[ip]++
	return true
}

// give returns a closed connection's places; its address's only when it
// still held it (countedIP).
func (l *limitedListener) give(ip netip.Addr, countedIP bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if countedIP {
		l.giveIPLocked(ip)
	}
	if l.budget != nil {
		l.budget.open.Add(-1)
	}
}

// giveIP returns a connection's place among its address's: it showed a
// valid key, and its key's plan bounds it from now on.
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
// address's place as soon as it shows a valid key (keyed).
type limitedConn struct {
	net.Conn
	l         *limitedListener
	ip        netip.Addr
	once      sync.Once
	countedIP atomic.Bool // it holds a place among its address's
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.give(c.ip, c.countedIP.Swap(false)) })
	return err
}

// keyed gives the address's place back, once.
func (c *limitedConn) keyed() {
	if c.countedIP.Swap(false) {
		c.l.giveIP(c.ip)
	}
}

// ConnGuard closes connections that stay idle (nothing sent yet, or
// between requests) for its idle time before any request on them has
// shown a valid key; after that the server's own idle timeout applies. Its ConnContext and
// ConnState are the http.Server's hooks; authenticate marks a connection
// once a key is admitted on it.
type ConnGuard struct {
	idle time.Duration
	// conns holds each open connection's mark (net.Conn → *connMark): the
	// ConnState hook is given only the connection. A sync.Map, so that the
	// lookup on every request's state change takes no lock shared by all
	// connections.
	conns sync.Map
}

// NewConnGuard closes keyless connections idle for idle (0: never).
func NewConnGuard(idle time.Duration) *ConnGuard {
	return &ConnGuard{idle: idle}
}

type connMarkKey struct{}

// connMark is one connection's state for the guard.
type connMark struct {
	conn    net.Conn
	keySeen atomic.Bool
	mu      sync.Mutex
	timer   *time.Timer
	idle    bool // the timer may close the connection
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
// is closed after the guard's idle time unless a request starts first.
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
		// A connection that showed a key is never armed again, and its
		// timer, stopped when the request that showed it began, could
		// not close it anyway (expire): nothing to do per request.
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

// markKeySeen records that a request on the connection showed a valid key:
// from now on it has the server's own idle timeout, and it no longer
// counts against its address's bound (its key's plan bounds it).
func markKeySeen(ctx context.Context) {
	m, ok := ctx.Value(connMarkKey{}).(*connMark)
	if !ok || m.keySeen.Swap(true) {
		return
	}
	c := m.conn
	if t, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS
		c = t.NetConn()
	}
	if lc, ok := c.(*limitedConn); ok {
		lc.keyed()
	}
}
