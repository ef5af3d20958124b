package ingress_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// The client side of TestIdleConnectionMemory runs in a child process (this
// test binary again), so that only the server's memory is measured here.
const (
	envClientURL       = "NODEGATE_TEST_WS_CLIENT_URL"
	envClientConns     = "NODEGATE_TEST_WS_CLIENT_CONNS"
	envClientSubscribe = "NODEGATE_TEST_WS_CLIENT_SUBSCRIBE"
)

// runAsClient makes this test binary a connection-holding child process
// when the memory tests start it so (see TestMain).
func runAsClient() {
	if url := os.Getenv(envClientURL); url != "" {
		n, _ := strconv.Atoi(os.Getenv(envClientConns))
		os.Exit(holdConnections(url, n, os.Getenv(envClientSubscribe)))
	}
}

// raiseFDLimit lifts the soft open-files limit to the hard one.
func raiseFDLimit(need uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Cur >= need {
		return nil
	}
	l.Cur = min(l.Max, need)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Cur < need {
		return fmt.Errorf("open files limit %d < %d", l.Cur, need)
	}
	return nil
}

// holdConnections opens n WebSockets, each subscribed to kind unless it
// is empty (then reading and dropping its notifications), says "ready",
// and holds them until stdin closes.
func holdConnections(url string, n int, kind string) int {
	if err := raiseFDLimit(uint64(n) + 256); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	d := websocket.Dialer{ReadBufferSize: 256, WriteBufferSize: 256, HandshakeTimeout: 30 * time.Second}
	conns := make([]*websocket.Conn, 0, n)
	for range n {
		c, _, err := d.Dial(url, nil)
		if err != nil {
			fmt.Println("error:", err)
			return 1
		}
		conns = append(conns, c)
		if kind == "" {
			continue
		}
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["`+kind+`"]}`)); err != nil {
			fmt.Println("error:", err)
			return 1
		}
		if _, msg, err := c.ReadMessage(); err != nil || !strings.Contains(string(msg), `"result":"0x`) {
			fmt.Printf("error: subscribe: %s %v\n", msg, err)
			return 1
		}
		go func() {
			for {
				if _, _, err := c.NextReader(); err != nil {
					return
				}
			}
		}()
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	for _, c := range conns {
		c.Close()
	}
	return 0
}

func serverMemory() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// TestIdleConnectionMemory opens 10,000 real loopback WebSockets (1,000
// with -short) and reports the server's memory per idle connection (heap
// plus goroutine stacks). It fails above 32 KiB each (the target is 20).
func TestIdleConnectionMemory(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	s := startGateway(t, nil)
	// Warm up what every process has once (pools, the first connection).
	warm := dial(t, s)
	roundTrip(t, warm, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
	before := serverMemory()
	startClients(t, s, n, "")
	after := serverMemory()
	per := float64(int64(after)-int64(before)) / float64(n)
	t.Logf("%d idle connections: %.0f bytes (%.1f KiB) each, heap+stacks", n, per, per/1024)
	if per > 32<<10 {
		t.Fatalf("%.1f KiB per idle connection, over 32 KiB", per/1024)
	}
}

// TestSubscribedConnectionMemory opens 10,000 real loopback WebSockets
// (1,000 with -short), each subscribed to newHeads, lets three heads reach
// all of them, and reports the server's memory per subscribed socket:
// heap plus stacks, and resident memory (RSS, after returning freed
// memory to the system). It fails above 12 KiB of either each.
func TestSubscribedConnectionMemory(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	s := startGateway(t, nil)
	warm := dial(t, s)
	roundTrip(t, warm, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)
	hub := s.Networks()[0].Subs
	sent := func() uint64 { return hub.Stats().Sent }
	commit := func(want uint64) {
		t.Helper()
		if err := s.Node.Commit(); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, time.Minute, fmt.Sprintf("%d notifications sent", want), func() bool { return sent() >= want })
	}
	commit(sent() + 1)
	before, rssBefore := serverMemory(), residentMemory(t)
	startClients(t, s, n, "newHeads")
	for range 3 {
		commit(sent() + uint64(n) + 1)
	}
	after, rssAfter := serverMemory(), residentMemory(t)
	per := float64(int64(after)-int64(before)) / float64(n)
	rss := float64(int64(rssAfter)-int64(rssBefore)) / float64(n)
	t.Logf("%d subscribed connections: %.1f KiB heap+stacks, %.1f KiB RSS each", n, per/1024, rss/1024)
	if per > 12<<10 || rss > 12<<10 {
		t.Fatalf("%.1f KiB heap+stacks, %.1f KiB RSS per subscribed connection: over 12 KiB", per/1024, rss/1024)
	}
}

// startClients runs the client process holding n connections to s (each
// subscribed to kind unless it is empty) until the test ends, and waits
// until the server has them all.
func startClients(t *testing.T, s *service.Service, n int, kind string) {
	t.Helper()
	if err := raiseFDLimit(uint64(n) + 1024); err != nil {
		t.Fatalf("cannot open %d connections: %v", n, err)
	}
	open := s.Ingress().OpenWebSockets()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envClientURL+"="+s.WSURL()+"/ws/v3/"+s.GeneratedKey, envClientConns+"="+strconv.Itoa(n), envClientSubscribe+"="+kind)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("client process: %q %v", line, err)
	}
	testenv.WaitFor(t, time.Minute, fmt.Sprintf("%d connections open", open+n), func() bool { return s.Ingress().OpenWebSockets() >= open+n })
}

// residentMemory is this process's RSS once freed memory is returned to
// the system.
func residentMemory(t *testing.T) uint64 {
	t.Helper()
	debug.FreeOSMemory()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
