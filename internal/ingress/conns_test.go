package ingress

import (
	"net"
	"testing"
	"time"
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
