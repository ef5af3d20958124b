package service

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestDrainListensUntilQuiet: a real process on SIGTERM keeps accepting
// after its drain_delay while clients still send (a balancer slower than
// the delay), answering with Connection: close, and closes its listener
// only once they stopped for drain_quiet: no request of theirs fails
// (neither refused nor cut), and the process exits 0. (The listener used
// to close when drain_delay ended, refusing what the balancer still sent.)
func TestDrainListensUntilQuiet(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
data_dir: %s/data
admin: { listen: "" }
plans: { team: { rate_per_second: 0 } }
shutdown: { drain_delay: 200ms, timeout: 10s }
`, dir))
	p := startServe(t, nil, "--config", path, "--starknet-listen", "")
	endpoint := p.url + "/v3/" + p.key
	var (
		stop             atomic.Bool
		wg               sync.WaitGroup
		mu               sync.Mutex
		failures         []string
		served, afterSig atomic.Int64
		signalled        atomic.Bool
	)
	clients := []*http.Client{
		{Transport: &http.Transport{DisableKeepAlives: true}}, // a new connection per request
		{Transport: &http.Transport{}},                        // keep-alive
	}
	for _, c := range clients {
		wg.Go(func() {
			for !stop.Load() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				status, body, err := testenv.Post(ctx, c, endpoint, blockNumberCall)
				cancel()
				if err != nil || status != http.StatusOK {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("HTTP %d %s %v", status, body, err))
					mu.Unlock()
					return
				}
				served.Add(1)
				if signalled.Load() {
					afterSig.Add(1)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	testenv.WaitFor(t, 10*time.Second, "calls before the signal", func() bool { return served.Load() >= 10 })
	signalled.Store(true)
	p.signal(syscall.SIGTERM)
	testenv.WaitFor(t, 5*time.Second, "/ready draining", func() bool {
		code, st := ready(t, p.url)
		return code == 503 && st.Status == "draining"
	})
	// A balancer that takes a second past the 503 (five drain delays) to
	// stop sending.
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d calls sent during the drain failed (%d answered after the signal), first: %s", len(failures), afterSig.Load(), failures[0])
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, p.output())
	}
	t.Logf("%d calls answered after the signal, none failed", afterSig.Load())
}
