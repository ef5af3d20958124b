package service

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestReadsNeverWaitForExecution: with more keys looping calls that run
// code than the embedded node has execution slots (and as many as the
// node serves calls at once), the slots are all taken and the other loops
// wait their turn, yet another key's eth_getBalance is answered while
// every loop still runs or waits: a read never waits for an execution
// slot, and the loops never take the node's every place.
func TestReadsNeverWaitForExecution(t *testing.T) {
	const callTimeout = 20 * time.Second
	loopers := make([]string, evmnode.DefaultMaxConcurrent())
	for i := range loopers {
		loopers[i] = fmt.Sprintf("%032x", i+1)
	}
	reader := fmt.Sprintf("%032x", 999)
	cfg := testConfig(t)
	cfg.Limits.GasCapFactor = 1000 // the looping calls run until call_timeout, not out of gas
	cfg.Plans["team"] = config.Plan{Failover: true, CallTimeout: callTimeout}
	cfg.APIKeys = append(append([]string(nil), loopers...), reader)
	s := start(t, cfg)
	slots := executionSlots()

	ctx, cancel := context.WithCancel(context.Background())
	var answered atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	loop := testenv.RPCBody("eth_call", `[{"data":"0x5b600056"},"latest"]`)
	for _, k := range loopers {
		wg.Go(func() {
			_, _, _ = testenv.Post(ctx, nil, s.URL()+"/v3/"+k, loop)
			answered.Add(1)
		})
	}
	testenv.WaitFor(t, 20*time.Second, "the loops to take every execution slot and wait for more", func() bool {
		running, waiting := s.admission.ExecutionQueue()
		return running == slots && waiting == len(loopers)-slots
	})

	status, out := testenv.PostJSON(t, s.URL()+"/v3/"+reader,
		testenv.RPCBody("eth_getBalance", `["0x0000000000000000000000000000000000000000","latest"]`))
	if status != http.StatusOK || !strings.Contains(string(out), `"result"`) {
		t.Fatalf("eth_getBalance: HTTP %d %s", status, out)
	}
	if running, waiting := s.admission.ExecutionQueue(); answered.Load() != 0 || running != slots || waiting != len(loopers)-slots {
		t.Fatalf("eth_getBalance was answered only once a loop ended (%d answered; %d run, %d wait)", answered.Load(), running, waiting)
	}
}
