package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/testenv"
)

// buildNodegate builds the nodegate binary into dir.
func buildNodegate(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "nodegate")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/nodegate").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v %s", err, out)
	}
	return bin
}

// killAtEnd kills r when the test ends, if it is still running.
func (r *replica) killAtEnd() {
	r.t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
}

// balancer is HAProxy in front of the replicas.
type balancer struct {
	// front is the address clients call.
	front string
	out   testenv.LogBuffer
}

// output is what HAProxy printed so far.
func (b *balancer) output() string { return b.out.String() }

// startBalancer runs HAProxy (the program at haproxy, its config in dir)
// on a free address in front of replicas until the test ends: round
// robin, a replica in service while its GET /ready answers 200 (checked
// every 200 ms, out at the first failure, back after two passes), at most
// maxconn connections, retrying as retry's lines say.
func startBalancer(t *testing.T, haproxy, dir string, maxconn int, retry string, replicas []*replica) *balancer {
	t.Helper()
	b := &balancer{front: freeAddr(t)}
	var servers strings.Builder
	for i, r := range replicas {
		fmt.Fprintf(&servers, "  server r%d %s check\n", i, r.rpc)
	}
	hcfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(hcfg, []byte(fmt.Sprintf(`global
  maxconn %d
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 5s
%s
frontend rpc
  bind %s
  default_backend nodegate
backend nodegate
  balance roundrobin
  option httpchk GET /ready
  http-check expect status 200
  default-server inter 200ms fall 1 rise 2
%s`, maxconn, retry, b.front, servers.String())), 0o600); err != nil {
		t.Fatal(err)
	}
	hp := exec.Command(haproxy, "-f", hcfg, "-db")
	hp.Stdout, hp.Stderr = &b.out, &b.out
	if err := hp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hp.Process.Kill(); _ = hp.Wait() })
	return b
}

// loadWhile runs during while 8 keep-alive clients call endpoint
// (eth_blockNumber and eth_chainId, one at a time each), starting a second
// before it, and returns what the clients saw.
func loadWhile(t *testing.T, endpoint string, during func()) *bench.Result {
	t.Helper()
	mix, err := bench.ParseMix("eth_blockNumber=1,eth_chainId=1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan *bench.Result, 1)
	go func() {
		r, err := bench.Run(ctx, bench.Config{URL: endpoint, Mix: mix, Concurrency: 8,
			Target: bench.Target{CallTo: bench.DefaultCallTo, CallFrom: bench.DefaultCallFrom, CallData: bench.DefaultCallData}, Batch: 1, Duration: 10 * time.Minute, Timeout: 30 * time.Second})
		if err != nil {
			t.Error(err)
			r = &bench.Result{}
		}
		res <- r
	}()
	time.Sleep(time.Second)
	during()
	cancel()
	return <-res
}
