package ingress

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestConnBudgetAcrossListeners: the client listeners share one budget (the
// descriptors left after the reserve): once it is held, a connection to any
// of them is closed at accept; one closed gives its place back.
func TestConnBudgetAcrossListeners(t *testing.T) {
	budget := NewConnBudget(3)
	var lns [2]net.Listener
	accepted := make(chan net.Conn, 16)
	for i := range lns {
		raw, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i] = LimitListener(raw, ConnLimits{}, budget)
		t.Cleanup(func() { lns[i].Close() })
		go func() {
			for {
				c, err := lns[i].Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
	}
	dial := func(i int) net.Conn {
		c, err := net.DialTimeout("tcp", lns[i].Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	var held []net.Conn
	for _, i := range []int{0, 1, 0} {
		dial(i)
		select {
		case c := <-accepted:
			held = append(held, c)
		case <-time.After(10 * time.Second):
			t.Fatal("a connection within the budget was not accepted")
		}
	}
	over := dial(1)
	_ = over.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err == nil {
		t.Fatal("a fourth connection was served")
	}
	if got := budget.Open(); got != 3 {
		t.Fatalf("budget holds %d, want 3", got)
	}
	held[0].Close()
	dial(1)
	select {
	case <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("the place a closed connection gave back was not taken")
	}
}

// TestKeyedIdleShortensAsBoundsFill: a keyed connection keeps the server's
// idle timeout while its listener's bounds are less than half full, and
// is closed sooner the fuller they are, down to the keyless idle time.
func TestKeyedIdleShortensAsBoundsFill(t *testing.T) {
	const keyless, server = time.Second, 101 * time.Second
	tests := []struct {
		name string
		fill float64
		want time.Duration
	}{
		{"empty", 0, 0},
		{"just under half", 0.49, 0},
		{"half", 0.5, server},
		{"three quarters", 0.75, 51 * time.Second},
		{"full", 1, keyless},
		{"over full", 1.2, keyless},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &ConnGuard{idle: keyless, serverIdle: server, pressure: func() float64 { return tc.fill }}
			if got := g.keyedIdle(); got != tc.want {
				t.Fatalf("keyed idle at %.2f full: %s, want %s", tc.fill, got, tc.want)
			}
		})
	}
}

// TestKeyedIdleConnectionReapedWhenFull: with its listener's bound held
// by keyed connections idle since before it filled, a new connection is
// refused at accept only until the guard closes the idle ones (after about
// the keyless idle time, not the server's hour): then it is served.
func TestKeyedIdleConnectionReapedWhenFull(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := LimitListener(raw, ConnLimits{MaxPerListener: 2}, NewConnBudget(0))
	g := NewConnGuard(200*time.Millisecond, time.Hour, ln)
	srv := &http.Server{ConnContext: g.ConnContext, ConnState: g.ConnState, IdleTimeout: time.Hour,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := r.Context().Value(connMarkKey{}).(*connMark)
			m.keySeen.Store(true) // as keyConn does once a request is admitted
		})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	get := func() (net.Conn, error) {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		return c, nil
	}
	var held []net.Conn
	for i := range 2 {
		c, err := get()
		if err != nil {
			t.Fatalf("connection %d within the bound: %v", i, err)
		}
		held = append(held, c)
	}
	testenv.WaitFor(t, 30*time.Second, "a new connection served on a listener full of idle keyed ones", func() bool {
		_, err := get()
		return err == nil
	})
	closed := 0
	for _, c := range held {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			closed++
		}
	}
	if closed == 0 {
		t.Fatal("no idle keyed connection was closed")
	}
}
