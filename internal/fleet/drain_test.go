package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/testenv"
)

// drainKey is the rolling-drain test's key, given to every replica.
const drainKey = "d7a1d7a1d7a1d7a1d7a1d7a1d7a1d7a1"

// TestRollingDrainNoEOF: two replicas (SQLite each, the load tool's static
// upstream) behind HAProxy that never retries (retries 0, no redispatch,
// no retry-on: an EOF, a reset or a refused connection at a replica is a
// failed call for the client), under load from 8 keep-alive clients;
// each replica in turn is sent SIGTERM and started again, twice round.
// No call fails: a draining replica asks its clients to close (Connection:
// close) and keeps its listener open until the balancer stopped sending
// (shutdown.drain_delay, then drain_quiet), so the balancer never meets a
// closed listener or a connection closed under a request (issue 29's
// soak: 8 calls got EOF during one drain). TestFleet's rolling restart
// runs with HAProxy's retries on, which hide such failures.
func TestRollingDrainNoEOF(t *testing.T) {
	haproxy := testenv.Program(t, "the rolling drain test's load balancer", "haproxy")
	dir := t.TempDir()
	bin := buildNodegate(t, dir)
	static, err := bench.StartStatic("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer static.Close()
	replicas := make([]*replica, 2)
	for i := range replicas {
		r := &replica{t: t, bin: bin, rpc: freeAddr(t)}
		r.conf = filepath.Join(dir, fmt.Sprintf("r%d.yaml", i))
		conf := fmt.Sprintf("listen: %s\ndata_dir: %s/r%d\nupstream: %s\nadmin: { listen: \"\" }\napi_keys: [%s]\nplans:\n  team: { rate_per_second: 0 }\nshutdown: { drain_delay: 1s, timeout: 10s }\n",
			r.rpc, dir, i, static.URL(), drainKey)
		if err := os.WriteFile(r.conf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		replicas[i] = r
		r.start()
		r.killAtEnd()
	}
	// No retries: an EOF, a reset or a refused connection at a replica is
	// a failed call for the client.
	lb := startBalancer(t, haproxy, dir, 1024, "  retries 0", replicas)
	endpoint := "http://" + lb.front + "/v3/" + drainKey
	testenv.WaitFor(t, 30*time.Second, "HAProxy serves", func() bool {
		code, _, _ := post(nil, endpoint, chainIDCall)
		return code == 200
	})
	rolled := loadWhile(t, endpoint, func() {
		for range 2 {
			for _, r := range replicas {
				if code := r.stop(syscall.SIGTERM); code != 0 {
					t.Errorf("replica %s exited %d on SIGTERM", r.rpc, code)
				}
				r.start()
				time.Sleep(time.Second) // HAProxy: rise 2 x inter 200ms
			}
		}
	})
	failed := rolled.Errors.Transport + rolled.Errors.HTTP + rolled.Errors.Malformed + rolled.Errors.RPC
	t.Logf("two rolling drains of 2 replicas behind HAProxy without retries: %d calls, %d failed (%+v)", rolled.Calls, failed, rolled.Errors)
	if failed != 0 || rolled.Calls == 0 {
		for _, r := range replicas {
			t.Logf("replica %s:\n%s", r.rpc, r.output())
		}
		t.Logf("haproxy:\n%s", lb.output())
		t.Fatalf("rolling drain: %d calls, %d failed: %s", rolled.Calls, failed, rolled.Errors.First)
	}
}
