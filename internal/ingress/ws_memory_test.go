package ingress_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The client side of TestIdleConnectionMemory runs in a child process (this
// test binary again), so that only the server's memory is measured here.
const (
	envClientURL   = "NODEGATE_TEST_WS_CLIENT_URL"
	envClientConns = "NODEGATE_TEST_WS_CLIENT_CONNS"
)

// runAsClient makes this test binary a connection-holding child process
// when the memory test starts it so (see TestMain).
func runAsClient() {
	if url := os.Getenv(envClientURL); url != "" {
		n, _ := strconv.Atoi(os.Getenv(envClientConns))
		os.Exit(holdConnections(url, n))
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

// holdConnections opens n WebSockets, says "ready", and holds them until
// stdin closes.
func holdConnections(url string, n int) int {
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
	if err := raiseFDLimit(uint64(n) + 1024); err != nil {
		t.Fatalf("cannot open %d connections: %v", n, err)
	}
	s := startGateway(t, nil)
	// Warm up what every process has once (pools, the first connection).
	warm := dial(t, s)
	roundTrip(t, warm, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
	before := serverMemory()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envClientURL+"="+s.WSURL()+"/ws/v3/"+s.GeneratedKey, envClientConns+"="+strconv.Itoa(n))
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
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("client process: %q %v", line, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for s.Ingress().OpenWebSockets() < n+1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want %d", s.Ingress().OpenWebSockets(), n+1)
		}
		time.Sleep(10 * time.Millisecond)
	}
	after := serverMemory()
	per := float64(int64(after)-int64(before)) / float64(n)
	t.Logf("%d idle connections: %.0f bytes (%.1f KiB) each, heap+stacks", n, per, per/1024)
	if per > 32<<10 {
		t.Fatalf("%.1f KiB per idle connection, over 32 KiB", per/1024)
	}
}
