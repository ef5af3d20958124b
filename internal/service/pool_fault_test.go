package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
)

// loadCall is one request of the mixed read load, with the answer the
// conformance fixtures say it must get.
type loadCall struct {
	method   string
	request  string
	want     any // the expected result
	eligible bool
}

func fixtureCall(t *testing.T, method, file string, eligible bool) loadCall {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(chainDir, method, file))
	if err != nil {
		t.Fatal(err)
	}
	var req, resp string
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, ">> ") && req == "":
			req = strings.TrimPrefix(line, ">> ")
		case strings.HasPrefix(line, "<< ") && resp == "":
			resp = strings.TrimPrefix(line, "<< ")
		}
	}
	var r struct{ Result any }
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		t.Fatal(err)
	}
	return loadCall{method: method, request: req, want: r.Result, eligible: eligible}
}

// phase says what answers are acceptable for calls sent during it.
type phase int32

const (
	strict  phase = iota // a node at the head lives: every call succeeds from the pool
	allDead              // no node: team+eligible from a partner, the rest 503
)

type outcome struct {
	sent, answered, ok, forwarded, unavailable atomic.Int64
	mu                                         sync.Mutex
	failures                                   []string
}

func (o *outcome) fail(format string, a ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.failures) < 20 {
		o.failures = append(o.failures, fmt.Sprintf(format, a...))
	}
}

// drive sends calls in a loop until stop, judging each answer by the
// phase it was sent in.
func drive(url string, team bool, calls []loadCall, cur *atomic.Int32, o *outcome, stop <-chan struct{}, id *atomic.Int64) {
	client := &http.Client{Timeout: 30 * time.Second}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		c := calls[i%len(calls)]
		n := id.Add(1)
		body := strings.Replace(c.request, `"id":1`, fmt.Sprintf(`"id":%d`, n), 1)
		ph := phase(cur.Load())
		o.sent.Add(1)
		resp, err := client.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			o.fail("transport error: %v", err)
			continue
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		o.answered.Add(1)
		judge(c, team, ph, n, resp, raw, o)
	}
}

func judge(c loadCall, team bool, ph phase, id int64, resp *http.Response, raw []byte, o *outcome) {
	var msg struct {
		ID     int64
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.ID != id {
		o.fail("%s: bad envelope or id (want %d): %s", c.method, id, raw)
		return
	}
	forwarded := resp.Header.Get(ingress.ForwardedHeader) != ""
	if forwarded {
		o.forwarded.Add(1)
		if !team || !c.eligible {
			o.fail("%s (team=%v) was forwarded to a partner", c.method, team)
		}
	}
	if msg.Error != nil {
		if ph == strict {
			o.fail("%s (team=%v) failed while a node lived: HTTP %d %s", c.method, team, resp.StatusCode, raw)
			return
		}
		if msg.Error.Code != -32603 || resp.StatusCode != http.StatusServiceUnavailable {
			o.fail("%s: want 503/-32603 with every node down, got HTTP %d %s", c.method, resp.StatusCode, raw)
		}
		if team && c.eligible {
			o.fail("%s from a team key was not forwarded with every node down", c.method)
		}
		o.unavailable.Add(1)
		return
	}
	var got any
	_ = json.Unmarshal(msg.Result, &got)
	if !reflect.DeepEqual(got, c.want) {
		o.fail("%s: wrong result (latest going backwards?): %s", c.method, clipped(raw))
		return
	}
	o.ok.Add(1)
}

func clipped(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// TestPoolFaults runs three `nodegate node` processes on the conformance
// chain (one of them lagging) and a partner, puts nodegate in front, and
// under a steady mixed load from a team key and a core key kills, restarts,
// stops and starves the nodes.
func TestPoolFaults(t *testing.T) {
	lagging := truncatedChain(t, 41) // 40 blocks after genesis: 14 behind the head
	a := startNode(t, chainDir, "127.0.0.1:0")
	b := startNode(t, chainDir, "127.0.0.1:0")
	c := startNode(t, lagging, "127.0.0.1:0")
	partner := startNode(t, chainDir, "127.0.0.1:0")

	cfg := config.Defaults()
	cfg.Listen = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.Admin.Listen = "127.0.0.1:0"
	teamKey, coreKey := strings.Repeat("ab", 16), ""
	cfg.APIKeys = []string{teamKey}
	// The load is far above the plans' rates: this test is about the pool,
	// so rate and daily limits are lifted (plan tiers still decide failover).
	cfg.Plans[config.PlanCore] = config.Plan{}
	cfg.Plans[config.PlanTeam] = config.Plan{Failover: true}
	cfg.Networks = []config.Network{{
		Name: "mainnet", Family: "evm",
		Upstreams: []config.Upstream{{Name: "a", URL: a.url()}, {Name: "b", URL: b.url()}, {Name: "c-lagging", URL: c.url()}},
		Partners:  []config.Partner{{Name: "partner", URL: partner.url()}},
		Pool:      config.Pool{AttemptTimeout: 3 * time.Second, HeadInterval: 200 * time.Millisecond, ProbeInterval: 50 * time.Millisecond, RetryBudget: 5 * time.Second},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())
	created, err := svc.KeyManager.Create(ctx, keys.CreateParams{Name: "core-app", Plan: config.PlanCore})
	if err != nil {
		t.Fatal(err)
	}
	coreKey = created.Key
	if err := svc.Keys.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	pool := svc.Networks()[0].Pool
	healthy := func(name string) bool {
		for _, st := range pool.Status() {
			if st.Name == name {
				return st.Healthy
			}
		}
		return false
	}

	calls := []loadCall{
		fixtureCall(t, "eth_getTransactionReceipt", "get-legacy-receipt.io", true),
		fixtureCall(t, "eth_call", "call-contract.io", true),
		fixtureCall(t, "eth_getTransactionByBlockHashAndIndex", "get-block-n.io", true),
		fixtureCall(t, "eth_blockNumber", "simple-test.io", false),
		fixtureCall(t, "eth_getBalance", "get-balance.io", false),
	}
	var (
		cur  atomic.Int32
		o    outcome
		id   atomic.Int64
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	for i := range 4 {
		key, team := teamKey, true
		if i%2 == 1 {
			key, team = coreKey, false
		}
		wg.Go(func() { drive(svc.URL()+"/v3/"+key, team, calls, &cur, &o, stop, &id) })
	}
	time.Sleep(time.Second)

	// Kill one node: nobody notices.
	a.signal(syscall.SIGKILL)
	killed := time.Now()
	testenv.WaitFor(t, 5*time.Second, "the pool to stop choosing the killed node", func() bool { return !healthy("a") })
	t.Logf("node killed → out of the pool in %v", time.Since(killed))
	time.Sleep(time.Second)

	// Restart it: it comes back by itself.
	a = a.restart()
	back := testenv.WaitFor(t, 10*time.Second, "the restarted node to come back", func() bool { return healthy("a") })
	t.Logf("restarted node back in the pool %v after listening", back)
	time.Sleep(500 * time.Millisecond)

	// A node that answers slowly (stopped: it accepts connections, never answers).
	b.signal(syscall.SIGSTOP)
	time.Sleep(1500 * time.Millisecond)
	b.signal(syscall.SIGCONT)
	testenv.WaitFor(t, 10*time.Second, "the slow node to come back", func() bool { return healthy("b") })
	time.Sleep(500 * time.Millisecond)

	// The lagging node was never chosen: every blockNumber answer so far was the head.
	if healthy("c-lagging") == false {
		t.Log("note: lagging node is out of service")
	}

	// Kill every node: only the team key's eligible calls are answered, by the partner.
	cur.Store(int32(allDead))
	// Calls sent before the switch (judged as strict) finish first: a call
	// still in flight when its last node dies has nowhere to go.
	time.Sleep(500 * time.Millisecond)
	a.kill()
	b.kill()
	c.kill()
	testenv.WaitFor(t, 5*time.Second, "every node out", func() bool { return !healthy("a") && !healthy("b") && !healthy("c-lagging") })
	time.Sleep(1500 * time.Millisecond)

	// Bring two back: recovery is automatic.
	a.restart() // the node comes back on its address; the test reads it by name
	b.restart()
	testenv.WaitFor(t, 10*time.Second, "recovery", func() bool { return healthy("a") && healthy("b") })
	time.Sleep(200 * time.Millisecond)
	cur.Store(int32(strict))
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	t.Logf("sent %d answered %d ok %d forwarded %d unavailable %d", o.sent.Load(), o.answered.Load(), o.ok.Load(), o.forwarded.Load(), o.unavailable.Load())
	for _, f := range o.failures {
		t.Error(f)
	}
	if o.sent.Load() != o.answered.Load() {
		t.Errorf("sent %d requests, got %d answers", o.sent.Load(), o.answered.Load())
	}
	if o.forwarded.Load() == 0 || o.unavailable.Load() == 0 {
		t.Errorf("the all-dead phase saw %d forwarded and %d unavailable answers; want both", o.forwarded.Load(), o.unavailable.Load())
	}
	if o.ok.Load() < 100 {
		t.Errorf("only %d successful calls: the load did not run", o.ok.Load())
	}
	_ = bytes.MinRead
}
