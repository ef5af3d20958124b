package ingress

import (
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

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
