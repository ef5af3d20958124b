package service

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestExecutionRefusedWhenItCannotRunInTime is issue 29's finding that
// one key's calls queued for its execution turn without bound (4 looping
// calls under a 1 s call_timeout answered after 1.8, 3.7, 5.3 and 7.2 s).
// Once the embedded node has run one of the key's looping calls (stopped
// at its call_timeout), a call of the key that would wait behind its
// share of such calls is refused at once with -32005 saying why, not
// queued until its deadline; another key's calls run meanwhile.
func TestExecutionRefusedWhenItCannotRunInTime(t *testing.T) {
	const callTimeout = 3 * time.Second
	looper, other := fmt.Sprintf("%032x", 1), fmt.Sprintf("%032x", 2)
	cfg := testConfig(t)
	cfg.Limits.GasCapFactor = 1000 // the looping calls run until call_timeout, not out of gas
	cfg.Plans["team"] = config.Plan{Failover: true, CallTimeout: callTimeout}
	cfg.APIKeys = []string{looper, other}
	s := start(t, cfg)
	key, ok := s.Keys.Lookup(looper)
	if !ok {
		t.Fatal("the looping key is not known")
	}
	share := s.admission.ExecutionShare()
	url := s.URL() + "/v3/" + looper
	loop := testenv.RPCBody("eth_call", `[{"data":"0x5b600056"},"latest"]`)

	// The key's first looping call runs to its call_timeout: the node
	// learns how long the key's calls hold their slots.
	if status, out := testenv.PostJSON(t, url, loop); status != http.StatusOK ||
		!strings.Contains(string(out), `"message":"execution aborted (timeout = 3s)"`) {
		t.Fatalf("the first looping call: HTTP %d %s", status, out)
	}
	testenv.WaitFor(t, 20*time.Second, "the first call's slot back", func() bool { return s.admission.Of(key.ID).Executions == 0 })

	// Its share of looping calls runs.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for range share {
		wg.Go(func() { _, _, _ = testenv.Post(ctx, nil, url, loop) })
	}
	testenv.WaitFor(t, 20*time.Second, "the key's share of looping calls to run", func() bool {
		return s.admission.Of(key.ID).Executions == share
	})

	// One more would start only when one of them ends, about 3 s from
	// now, with no time left to run: it is refused when it asks.
	sent := time.Now()
	status, out, err := testenv.Post(context.Background(), nil, url, loop)
	took := time.Since(sent)
	const want = `this account's calls that run code hold its execution slots for at least `
	if err != nil || status != http.StatusOK || !strings.Contains(string(out), `{"code":-32005,"message":"`+want) ||
		!strings.Contains(string(out), "this call would not start in time to run that long within its call_timeout (3s), so it did not run") {
		t.Fatalf("a call behind the key's running share: HTTP %d %s (%v) after %v, want -32005 %q…", status, out, err, took, want)
	}
	// Refused when it asked, not at its deadline.
	if took >= callTimeout {
		t.Fatalf("the refusal came %v after the call was sent: at its call_timeout, not when it asked", took)
	}
	if _, waiting := s.admission.ExecutionQueue(); waiting != 0 {
		t.Fatalf("%d calls wait after the refusal", waiting)
	}
	t.Logf("refused %v after it was sent: %s", took.Round(time.Millisecond), out)

	// Another key's call runs while the looping key's share is taken.
	quick := testenv.RPCBody("eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]`)
	if status, out := testenv.PostJSON(t, s.URL()+"/v3/"+other, quick); status != http.StatusOK || !strings.Contains(string(out), `"result"`) {
		t.Fatalf("another key's eth_call: HTTP %d %s", status, out)
	}

	// The refusal is counted as a limit.
	testenv.WaitFor(t, 10*time.Second, "nodegate_requests_total{method=eth_call,code=limit} to count the refusal", func() bool {
		return requestsCounted(t, s, "eth_call", "limit") == 1
	})
}

// requestsCounted is nodegate_requests_total for method and code, every
// network and plan together.
func requestsCounted(t *testing.T, s *Service, method, code string) float64 {
	t.Helper()
	fams, err := s.Metrics.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range fams {
		if f.GetName() != "nodegate_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method"] == method && labels["code"] == code {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}
