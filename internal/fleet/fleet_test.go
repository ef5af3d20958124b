package fleet

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/testenv"
)

const adminToken = "fleet-test-admin-token"

// replica is one `nodegate serve` process on fixed ports, restartable.
type replica struct {
	t          *testing.T
	bin, conf  string
	rpc, admin string // host:port
	cmd        *exec.Cmd
	done       chan struct{}
	code       int
	out        *strings.Builder
	mu         sync.Mutex
}

func (r *replica) start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, "serve", "--config", r.conf)
	r.cmd.Env = append(os.Environ(), "NODEGATE_ADMIN_TOKEN=")
	stdout, _ := r.cmd.StdoutPipe()
	r.out = &strings.Builder{}
	r.cmd.Stderr = writerFunc(func(b []byte) (int, error) { r.mu.Lock(); defer r.mu.Unlock(); return r.out.Write(b) })
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.done = make(chan struct{})
	up := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		once := sync.Once{}
		for sc.Scan() {
			r.mu.Lock()
			r.out.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			if strings.Contains(sc.Text(), "Ctrl-C stops nodegate") {
				once.Do(func() { close(up) })
			}
		}
		_ = r.cmd.Wait()
		r.code = r.cmd.ProcessState.ExitCode()
		close(r.done)
	}()
	select {
	case <-up:
	case <-r.done:
		r.t.Fatalf("replica %s exited %d at start: %s", r.rpc, r.code, r.output())
	case <-time.After(90 * time.Second):
		r.t.Fatalf("replica %s did not start", r.rpc)
	}
	testenv.WaitFor(r.t, 30*time.Second, "replica ready", func() bool { return status(r.t, "http://"+r.rpc+"/ready") == 200 })
}

func (r *replica) output() string { r.mu.Lock(); defer r.mu.Unlock(); return r.out.String() }

func (r *replica) stop(sig syscall.Signal) int {
	r.t.Helper()
	_ = r.cmd.Process.Signal(sig)
	select {
	case <-r.done:
		return r.code
	case <-time.After(60 * time.Second):
		r.t.Fatalf("replica %s did not exit on %v", r.rpc, sig)
		return -1
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// freeAddr is a free 127.0.0.1 address whose port lies below the OS's
// ephemeral range. A replica is restarted on the same port, and a port the
// OS hands out (to another test's listener on :0, or as the local port of
// an outgoing connection) could be taken between a stop and a start.
func freeAddr(t *testing.T) string {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	base := max(1024, low-12000)
	for range 200 {
		if low-base < 100 {
			break
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+rand.IntN(low-base)))
		if err != nil {
			continue
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func status(t *testing.T, url string) int {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// createKey makes a key with `nodegate keys create --config` of a replica.
func createKey(t *testing.T, conf, plan string) string {
	t.Helper()
	var out, errOut strings.Builder
	if code := keyscmd.Run([]string{"create", "--plan", plan, "--config", conf}, &out, &errOut); code != 0 {
		t.Fatalf("keys create: %s", errOut.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "key:" {
			return f[1]
		}
	}
	t.Fatalf("no key in %s", out.String())
	return ""
}

func post(c *http.Client, url, body string) (int, string, error) {
	status, b, err := testenv.Post(context.Background(), c, url, body)
	return status, string(b), err
}

const (
	chainIDCall = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
	chainIDCost = 5 // credits (the method table)
	budgetRate  = 500.0
)

// TestFleet: three replicas behind HAProxy.
func TestFleet(t *testing.T) {
	haproxy := testenv.Program(t, "the fleet test's load balancer", "haproxy")
	dsn := pgtest.DSN(t)
	rc := redistest.Require(t)
	prefix := redistest.Prefix(t, rc)
	dir := t.TempDir()
	bin := buildNodegate(t, dir)
	static, err := bench.StartStatic("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer static.Close()

	replicas := make([]*replica, 3)
	for i := range replicas {
		r := &replica{t: t, bin: bin, rpc: freeAddr(t), admin: freeAddr(t)}
		r.conf = filepath.Join(dir, fmt.Sprintf("r%d.yaml", i))
		conf := fmt.Sprintf(`listen: %s
data_dir: %s/r%d
database_url: %s
key_refresh: 250ms
upstream: %s
admin: { listen: %s, token: %s }
rate_limit: { redis_url: "redis://%s/0", redis_prefix: %q, heartbeat: 200ms }
plans:
  team: { rate_per_second: 0 }
  metered: { rate_per_second: %v }
shutdown: { drain_delay: 2s, timeout: 10s }
`, r.rpc, dir, i, dsn, static.URL(), r.admin, adminToken, redistest.Addr(), prefix, budgetRate)
		if err := os.WriteFile(r.conf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		replicas[i] = r
	}
	for _, r := range replicas {
		r.start()
		r.killAtEnd()
	}
	lb := startBalancer(t, haproxy, dir, 4096, "  option redispatch\n  retries 2\n  retry-on conn-failure empty-response", replicas)
	loadKey := createKey(t, replicas[0].conf, "team")
	endpoint := "http://" + lb.front + "/v3/" + loadKey
	// Every replica must know the new key before the load starts: each
	// learns it within key_refresh, and HAProxy spreads the calls over all.
	for _, r := range replicas {
		testenv.WaitFor(t, 30*time.Second, "replica "+r.rpc+" knows the load key", func() bool {
			code, _, _ := post(http.DefaultClient, "http://"+r.rpc+"/v3/"+loadKey, chainIDCall)
			return code == 200
		})
	}
	testenv.WaitFor(t, 30*time.Second, "HAProxy serves", func() bool {
		code, _, _ := post(http.DefaultClient, endpoint, chainIDCall)
		return code == 200
	})
	underLoad := func(during func()) *bench.Result {
		return loadWhile(t, endpoint, func() { during(); time.Sleep(time.Second) })
	}
	failed := func(r *bench.Result) int64 {
		return r.Errors.Transport + r.Errors.HTTP + r.Errors.Malformed + r.Errors.RPC
	}

	// 1. Rolling restart with SIGTERM: no failed call.
	rolling := underLoad(func() {
		for _, r := range replicas {
			if code := r.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("replica %s exited %d on SIGTERM", r.rpc, code)
			}
			r.start()
			time.Sleep(time.Second) // HAProxy: rise 2 x inter 200ms
		}
	})
	t.Logf("rolling restart of 3 replicas: %d calls served, %d failed (%+v)", rolling.Calls, failed(rolling), rolling.Errors)
	if failed(rolling) != 0 || rolling.Calls == 0 {
		t.Errorf("rolling restart: %d calls, %d failed: %s", rolling.Calls, failed(rolling), rolling.Errors.First)
	}

	// 2. SIGKILL one replica under load: report the failed calls.
	killed := underLoad(func() {
		replicas[0].stop(syscall.SIGKILL)
		time.Sleep(2 * time.Second)
	})
	t.Logf("SIGKILL of one replica: %d calls served, %d failed (%+v)", killed.Calls, failed(killed), killed.Errors)
	replicas[0].start()

	// 3. A key revoked on one replica is refused by all within 1 s.
	victim := createKey(t, replicas[0].conf, "team")
	for _, r := range replicas {
		testenv.WaitFor(t, 5*time.Second, "new key known", func() bool {
			code, _, _ := post(http.DefaultClient, "http://"+r.rpc+"/v3/"+victim, chainIDCall)
			return code == 200
		})
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+replicas[1].admin+"/admin/keys/"+keys.IDOf(keys.HashOf(victim))+"/revoke", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", resp, err)
	}
	resp.Body.Close()
	revoked := time.Now()
	var slowest time.Duration
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, r := range replicas {
		wg.Go(func() {
			for time.Since(revoked) < 10*time.Second {
				if code, _, _ := post(http.DefaultClient, "http://"+r.rpc+"/v3/"+victim, chainIDCall); code == 401 {
					mu.Lock()
					slowest = max(slowest, time.Since(revoked))
					mu.Unlock()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Errorf("replica %s still accepts the revoked key after 10 s", r.rpc)
		})
	}
	wg.Wait()
	t.Logf("revocation: refused by every replica %v after the revoke answered", slowest.Round(time.Millisecond))
	if slowest > time.Second {
		t.Errorf("revocation took %v on the slowest replica (want within 1 s)", slowest)
	}

	// 4. One key's rate budget is the fleet's, within 5%.
	metered := createKey(t, replicas[0].conf, "metered")
	mURL := "http://" + lb.front + "/v3/" + metered
	for _, r := range replicas {
		testenv.WaitFor(t, 5*time.Second, "metered key known", func() bool {
			code, _, _ := post(http.DefaultClient, "http://"+r.rpc+"/v3/"+metered, chainIDCall)
			return code == 200 || code == 429
		})
	}
	var (
		stamps     []time.Time
		other      atomic.Int64
		refused    atomic.Int64
		stop       atomic.Bool
		firstOther atomic.Value
	)
	var lwg sync.WaitGroup
	var smu sync.Mutex
	for range 8 {
		lwg.Go(func() {
			c := &http.Client{Timeout: 10 * time.Second}
			for !stop.Load() {
				code, body, err := post(c, mURL, chainIDCall)
				switch {
				case err == nil && code == 200:
					smu.Lock()
					stamps = append(stamps, time.Now())
					smu.Unlock()
				case err == nil && code == 429:
					refused.Add(1)
				default:
					other.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("%d %s %v", code, body, err))
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond) // the burst is spent
	from := time.Now()
	time.Sleep(6 * time.Second)
	to := time.Now()
	stop.Store(true)
	lwg.Wait()
	served := 0
	for _, s := range stamps {
		if s.After(from) && !s.After(to) {
			served++
		}
	}
	budget := budgetRate * to.Sub(from).Seconds() / chainIDCost
	errPct := 100 * (float64(served) - budget) / budget
	t.Logf("shared budget: %d calls served across the fleet in %.1f s, budget %.0f: error %+.1f%% (%d served, %d refused with 429 in all)", served, to.Sub(from).Seconds(), budget, errPct, len(stamps), refused.Load())
	if refused.Load() < int64(budget) {
		t.Errorf("the load was not far above the budget: %d refused", refused.Load())
	}
	if errPct > 5 || errPct < -5 || other.Load() != 0 {
		t.Errorf("budget error %+.1f%% (want within 5%%), %d unexpected answers (first: %v)", errPct, other.Load(), firstOther.Load())
	}
	if t.Failed() {
		for _, r := range replicas {
			t.Logf("replica %s:\n%s", r.rpc, r.output())
		}
		t.Logf("haproxy:\n%s", lb.output())
	}
}
