package service

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/faultproxy"
)

// TestMembersThatLieAndStall is the harness (harness_faults_test.go):
//   - liar: one of two members lies on 5 % of its answers in the ways the
//     checks cover (block hash, parent hash, transactions root, a
//     transaction's field, another block or transaction than asked): no
//     corrupted answer is delivered, and every lie takes the liar out at
//     once. The ways no check covers yet (a receipt's status, a log's
//     data: the receipts root is not checked) are told in a second run,
//     whose delivered lies are reported, not asserted;
//   - stall: one of two members holds 10 % of its calls for 500 ms; the
//     same pool without the stall runs side by side (each call to both):
//     the p99 of each and the upstream calls per client call are reported,
//     and the latter must stay within the hedge budget.
func TestMembersThatLieAndStall(t *testing.T) {
	a, b := startNode(t, chainDir, "127.0.0.1:0"), startNode(t, chainDir, "127.0.0.1:0")
	calls := harnessCalls(t, b.url())
	t.Logf("%d distinct calls", len(calls))

	lieCalls, stallCalls := 3000, 2000
	if harnessLong() {
		lieCalls, stallCalls = 100_000, 20_000
	}
	covered := []string{faultproxy.WayHash, faultproxy.WayParentHash, faultproxy.WayTransactionsRoot, faultproxy.WayTxField, faultproxy.WayAnother}
	uncovered := []string{faultproxy.WayReceiptStatus, faultproxy.WayLogData}
	for _, tc := range []struct {
		name   string
		ways   []string
		assert bool
	}{{"liar, ways the checks cover", covered, true}, {"liar, receipt status and log data", uncovered, false}} {
		t.Run(tc.name, func(t *testing.T) {
			liar := faultproxy.Start(t, a.url(), faultproxy.Config{LieEvery: 20, Ways: tc.ways})
			honest := faultproxy.Start(t, b.url(), faultproxy.Config{})
			url := harnessService(t, liar.URL, honest.URL)
			run := &harnessRun{}
			loop(calls, lieCalls, 4, []string{url}, []*harnessRun{run})
			lies := liar.Lies()
			var told int64
			for _, n := range lies {
				told += n
			}
			t.Logf("%d calls (%d failed, %d over the eth_getLogs time limit), liar saw %d, lies told %d %v, corrupted answers delivered %d (first: %s)",
				run.calls.Load(), run.failed.Load(), run.limited.Load(), liar.Calls.Load(), told, lies, run.wrong.Load(), run.firstWrong)
			if run.failed.Load() != 0 {
				t.Errorf("%d calls failed (first: %s)", run.failed.Load(), run.firstFail)
			}
			if !tc.assert {
				return
			}
			// Each lie quarantines the liar for 500 ms, so a quick run (a quiet
			// machine: 3,000 calls in about 3 s) hears only a few: 4 once.
			if told == 0 {
				t.Fatal("the liar told no lie: the harness did not test")
			}
			if run.wrong.Load() != 0 {
				t.Fatalf("%d corrupted answers delivered", run.wrong.Load())
			}
		})
	}

	t.Run("stall", func(t *testing.T) {
		staller := faultproxy.Start(t, a.url(), faultproxy.Config{StallEvery: 10, Stall: 500 * time.Millisecond})
		honest := faultproxy.Start(t, b.url(), faultproxy.Config{})
		plainA, plainB := faultproxy.Start(t, a.url(), faultproxy.Config{}), faultproxy.Start(t, b.url(), faultproxy.Config{})
		stalled, plain := &harnessRun{}, &harnessRun{}
		urls := []string{harnessService(t, staller.URL, honest.URL), harnessService(t, plainA.URL, plainB.URL)}
		loop(calls, stallCalls, 4, urls, []*harnessRun{stalled, plain})
		upstreamCalls := float64(staller.Calls.Load()+honest.Calls.Load()) / float64(stalled.calls.Load())
		plainCalls := float64(plainA.Calls.Load()+plainB.Calls.Load()) / float64(plain.calls.Load())
		t.Logf("stalled pool: %d calls, %d held 500 ms by the member, p50 %v p99 %v, %.3f upstream calls a client call; same pool without the stall: p50 %v p99 %v, %.3f; p99 ratio %.2f",
			stalled.calls.Load(), staller.Stalled.Load(), stalled.quantile(0.5), stalled.quantile(0.99), upstreamCalls,
			plain.quantile(0.5), plain.quantile(0.99), plainCalls, float64(stalled.quantile(0.99))/float64(plain.quantile(0.99)))
		if stalled.failed.Load()+plain.failed.Load() != 0 || stalled.wrong.Load()+plain.wrong.Load() != 0 {
			t.Fatalf("failed %d/%d (%s%s), wrong %d/%d", stalled.failed.Load(), plain.failed.Load(), stalled.firstFail, plain.firstFail, stalled.wrong.Load(), plain.wrong.Load())
		}
		if staller.Stalled.Load() == 0 {
			t.Fatal("no call was held: the harness did not test")
		}
		// The budget: at most 10 % of calls hedged, plus its burst and the
		// calls of a member that hangs.
		if upstreamCalls > 1.15 {
			t.Fatalf("%.3f upstream calls a client call: over the hedge budget", upstreamCalls)
		}
	})
}
