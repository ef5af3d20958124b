package ingress_test

import (
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/testenv"
)

// heapInUse is the live heap after a collection (garbage does not count).
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestWebSocketFrameOverLimit: a message over the limit closes with 1009.
func TestWebSocketFrameOverLimit(t *testing.T) {
	c := startOwnGateway(t, ingress.WSLimits{MaxMessageBytes: 1024}).dial(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[],"pad":"` + strings.Repeat("x", 2048) + `"}`
	if err := c.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if code := closeCode(t, c); code != websocket.CloseMessageTooBig {
		t.Fatalf("close code %d, want 1009", code)
	}
}

// TestWebSocketTenThousandSubscriptions: past the per-connection limit each
// subscribe gets -32005; all share one upstream stream; memory stays bounded.
func TestWebSocketTenThousandSubscriptions(t *testing.T) {
	g := startOwnGateway(t, ingress.WSLimits{}) // default limit: 1000 per connection
	c := g.dial(t)
	runtime.GC()
	before := heapInUse()
	ok, limited := 0, 0
	var firstID string
	for b := range 10 {
		var sb strings.Builder
		sb.WriteByte('[')
		for i := range 1000 {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"eth_subscribe","params":["newHeads"]}`, b*1000+i)
		}
		sb.WriteByte(']')
		var answers []struct {
			Result string
			Error  *struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(roundTrip(t, c, sb.String())), &answers); err != nil || len(answers) != 1000 {
			t.Fatalf("batch %d: %d answers, %v", b, len(answers), err)
		}
		for _, a := range answers {
			switch {
			case a.Error == nil:
				ok++
				if firstID == "" {
					firstID = a.Result
				}
			case a.Error.Code == -32005 && a.Error.Message == "too many subscriptions on this connection (limit 1000)":
				limited++
			default:
				t.Fatalf("unexpected error %+v", a.Error)
			}
		}
	}
	if ok != 1000 || limited != 9000 {
		t.Fatalf("%d subscribed, %d refused; want 1000 and 9000", ok, limited)
	}
	if n := g.network.Subs.Streams(); n != 1 {
		t.Fatalf("%d upstream subscriptions, want 1 shared", n)
	}
	runtime.GC()
	if grew := int64(heapInUse()) - int64(before); grew > 16<<20 {
		t.Fatalf("heap grew by %d bytes for 1000 subscriptions", grew)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_unsubscribe","params":["`+firstID+`"]}`); got != `{"jsonrpc":"2.0","id":1,"result":true}` {
		t.Fatalf("unsubscribe: %s", got)
	}
	c.Close()
	testenv.WaitFor(t, 5*time.Second, "the upstream subscription to end after the last client left", func() bool { return g.network.Subs.Streams() == 0 })
}

// TestWebSocketSlowReader: a client that does not read is closed with 1008
// once its send queue is full, and the server's memory stays bounded.
func TestWebSocketSlowReader(t *testing.T) {
	const queue = 256 << 10
	// Collect often, so that the heap's peak shows what is live (the bound
	// is ~40 MB without the queue's limit), not how late the GC ran on a
	// busy machine.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	// Few calls in flight, so that what the heap holds is the queue's
	// doing: 400 answers of ~100 KB would be ~40 MB without its bound.
	g := startOwnGateway(t, ingress.WSLimits{SendQueueBytes: queue, WriteTimeout: 5 * time.Second, MaxInFlight: 4})
	// A small receive buffer, so the kernel holds little for the client.
	d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		nd := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
			return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		}}
		return nd.Dial(network, addr)
	}}
	c, _, err := d.Dial(g.WSURL()+"/ws/v3/"+g.GeneratedKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"eth_getBlockByNumber","params":["0x0",true]}`, i)
	}
	sb.WriteByte(']')
	msg := []byte(sb.String())

	// The heap is the process's: keep the collector's headroom small, so
	// that the peak is what is held (the send queue), not garbage of the
	// upstream's answers or of earlier tests (17 MB once in a package run).
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := heapInUse()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if h := heapInUse(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	})
	// Up to 40 MB of answers if nothing stopped them.
	sent := 0
	defer func() { t.Logf("sent %d", sent) }()
	for range 400 {
		sent++
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
			break // the server has closed the connection
		}
		if g.server.OpenWebSockets() == 0 {
			break
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	code := 0
	_ = c.SetReadDeadline(deadline)
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				code = ce.Code
			}
			t.Logf("read ended: %v", err)
			break
		}
	}
	close(stop)
	wg.Wait()
	if code != websocket.ClosePolicyViolation {
		t.Fatalf("close code %d, want 1008 (slow reader)", code)
	}
	// Without the queue's bound the heap holds ~40 MB of answers; with it
	// 2–7 MB alone, and up to 19 MB in a loaded CI package run (the
	// process's heap: the in-process node and earlier tests' leftovers
	// count too). 28 MB tells the two apart on any machine.
	if grew := int64(peak.Load()) - int64(base); grew > 28<<20 {
		t.Fatalf("heap grew by %d bytes with a %d-byte send queue", grew, queue)
	}
	t.Logf("peak heap growth %d KiB with a %d KiB send queue", (int64(peak.Load())-int64(base))>>10, queue>>10)
}

// TestWebSocketInFlightLimit: at the limit the server stops reading until
// a call finishes; with a limit of 1 the answers come strictly in order.
func TestWebSocketInFlightLimit(t *testing.T) {
	c := startOwnGateway(t, ingress.WSLimits{MaxInFlight: 1}).dial(t)
	const n = 200
	for i := range n {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getBlockByNumber","params":["0x0",true]}`, i)
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		var r struct {
			ID    int
			Error any
		}
		if err := json.Unmarshal([]byte(readText(t, c)), &r); err != nil || r.Error != nil {
			t.Fatalf("answer %d: %+v %v", i, r, err)
		}
		if r.ID != i {
			t.Fatalf("answer %d has id %d: calls ran concurrently past the limit of 1", i, r.ID)
		}
	}
}

// TestWebSocketKeepalive: the server pings; an idle connection without
// subscriptions is closed with 1000 "idle timeout"; one with a
// subscription stays.
func TestWebSocketKeepalive(t *testing.T) {
	g := startOwnGateway(t, ingress.WSLimits{PingInterval: 50 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	idle := g.dial(t)
	var pings atomic.Int32
	idle.SetPingHandler(func(string) error { pings.Add(1); return nil })
	busy := g.dial(t)
	if got := roundTrip(t, busy, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`); !strings.Contains(got, `"result":"0x`) {
		t.Fatalf("subscribe: %s", got)
	}
	_ = idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _, err := idle.ReadMessage()
	ce, ok := err.(*websocket.CloseError)
	if !ok || ce.Code != websocket.CloseNormalClosure || ce.Text != "idle timeout" {
		t.Fatalf("idle connection ended with %v", err)
	}
	if pings.Load() == 0 {
		t.Fatal("no ping before the idle timeout")
	}
	// The subscribed connection is still served.
	if got := roundTrip(t, busy, `{"jsonrpc":"2.0","id":2,"method":"eth_chainId","params":[]}`); got != `{"jsonrpc":"2.0","id":2,"result":"0x539"}` {
		t.Fatalf("subscribed connection: %s", got)
	}
}
