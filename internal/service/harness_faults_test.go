package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// The harness of members as they are (docs/pools.md, "Hedged reads" and
// "Answers verified before they leave"): two `nodegate node` processes on
// the same imported chain, a faultproxy in front of each, nodegate in
// front of both, and clients that compare every answer with the honest
// node's. CI runs the short form; NODEGATE_HARNESS_LONG=1 the long one
// (10^5 calls to the liar, 2·10^4 calls a pool for the stall), or
// NODEGATE_HARNESS_LONG=N for N calls to the liar and N/5 a pool (a scaled
// run). Every loop also ends at its share of the test's -timeout (and says
// how many calls it made): give the long form -timeout 60m.

// harnessCall is a client call and the honest node's answer to it.
type harnessCall struct {
	method, params string
	want           json.RawMessage
}

// harnessCalls are calls about the chain's blocks, transactions, receipts
// and logs, with node's answers.
func harnessCalls(t *testing.T, node string) []harnessCall {
	t.Helper()
	var head string
	if err := json.Unmarshal(testenv.Call(t, node, "eth_blockNumber", `[]`).Result, &head); err != nil {
		t.Fatal(err)
	}
	var n uint64
	fmt.Sscanf(head, "0x%x", &n)
	var calls []harnessCall
	add := func(method, params string) {
		calls = append(calls, harnessCall{method, params, testenv.Call(t, node, method, params).Result})
	}
	for i := uint64(1); i <= n && len(calls) < 400; i++ {
		var b struct {
			Hash         string   `json:"hash"`
			Transactions []string `json:"transactions"`
		}
		if err := json.Unmarshal(testenv.Call(t, node, "eth_getBlockByNumber", fmt.Sprintf(`["0x%x",false]`, i)).Result, &b); err != nil {
			t.Fatal(err)
		}
		add("eth_getBlockByNumber", fmt.Sprintf(`["0x%x",true]`, i))
		add("eth_getBlockByHash", fmt.Sprintf(`[%q,false]`, b.Hash))
		if len(b.Transactions) == 0 {
			continue
		}
		add("eth_getLogs", fmt.Sprintf(`[{"blockHash":%q}]`, b.Hash))
		for _, h := range b.Transactions[:min(len(b.Transactions), 3)] {
			add("eth_getTransactionByHash", fmt.Sprintf(`[%q]`, h))
			add("eth_getTransactionReceipt", fmt.Sprintf(`[%q]`, h))
		}
	}
	return calls
}

// harnessService is nodegate in front of two members, without the cache
// (every call reaches a member), with tx_hash checked and, when
// receiptsRoot, the receipts root: its URL and pool.
func harnessService(t *testing.T, first, second string, receiptsRoot bool) (string, *upstream.Pool) {
	t.Helper()
	cfg := testConfig(t)
	cfg.Node.ChainDir = ""
	cfg.NoStarknet = true
	off, on := false, true
	nc := config.Network{Name: "main", Upstreams: []config.Upstream{{Name: "first", URL: first}, {Name: "second", URL: second}}}
	nc.Cache.Enabled = &off
	nc.Verify.TxHash = &on
	nc.Verify.ReceiptsRoot = &receiptsRoot
	nc.Verify.Quarantine = 500 * time.Millisecond
	cfg.Networks = []config.Network{nc}
	// The load is the harness's: no rate limit (on a quiet machine its four
	// clients passed the team plan's 40,000 credits/s and got 429).
	cfg.Plans[config.PlanTeam] = config.Plan{Failover: true}
	s := start(t, cfg)
	return s.URL() + "/v3/" + s.GeneratedKey, s.Networks()[0].Pool
}

// harnessRun is what a client loop saw of one service.
type harnessRun struct {
	calls, wrong, failed atomic.Int64
	// limited are -32005 answers: the gateway's own eth_getLogs time
	// limit, which a loaded machine reaches (not a member's answer).
	limited               atomic.Int64
	mu                    sync.Mutex
	took                  []time.Duration
	firstWrong, firstFail string
}

// ask sends c to url and judges the answer.
func (r *harnessRun) ask(client *http.Client, url string, c harnessCall) {
	start := time.Now()
	code, out, err := testenv.Post(context.Background(), client, url, testenv.RPCBody(c.method, c.params))
	d := time.Since(start)
	r.calls.Add(1)
	var a struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil && code == http.StatusOK && json.Unmarshal(out, &a) == nil && strings.Contains(string(a.Error), "-32005") {
		r.limited.Add(1)
		return
	}
	if err != nil || code != http.StatusOK || json.Unmarshal(out, &a) != nil || a.Error != nil {
		r.failed.Add(1)
		if r.firstFail == "" {
			r.firstFail = fmt.Sprintf("%s %s: %d %v %.300s", c.method, c.params, code, err, out)
		}
		return
	}
	r.took = append(r.took, d)
	if !sameAnswer(a.Result, c.want) {
		r.wrong.Add(1)
		if r.firstWrong == "" {
			r.firstWrong = fmt.Sprintf("%s %s: %.300s", c.method, c.params, a.Result)
		}
	}
}

// quantile is the q-quantile of the answered calls' times.
func (r *harnessRun) quantile(q float64) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := slices.Clone(r.took)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func sameAnswer(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// loop runs clients that send n calls in all, each call to every url in
// turn (side by side), judged in runs[i]; they stop sending at until
// (zero: no bound).
func loop(calls []harnessCall, n, clients int, urls []string, runs []*harnessRun, until time.Time) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2}}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if !until.IsZero() && time.Until(until) <= 0 {
					return // a load run's end, not a wait (testenv.DeadlineLoops)
				}
				c := calls[int(i)%len(calls)]
				for j, u := range urls {
					runs[j].ask(client, u, c)
				}
			}
		})
	}
	wg.Wait()
}

// harnessSize is the calls to the liar and a pool's for the stall: the
// short form's, or NODEGATE_HARNESS_LONG's.
func harnessSize() (lieCalls, stallCalls int) {
	switch v := os.Getenv("NODEGATE_HARNESS_LONG"); v {
	case "":
		return 3000, 2000
	case "1":
		return 100_000, 20_000
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 100_000, 20_000
		}
		return n, max(n/5, 1)
	}
}

// harnessUntil is when a loop of the test stops: its share (one of
// loops) of the time left before the test's deadline, less a margin for
// the rest (zero: no deadline).
func harnessUntil(t *testing.T, loops int) time.Time {
	dl, ok := t.Deadline()
	if !ok {
		return time.Time{}
	}
	left := time.Until(dl) - time.Minute
	return time.Now().Add(max(left/time.Duration(loops), time.Second))
}

// receiptCalls counts the receipt and log calls among calls.
func receiptCalls(calls []harnessCall) int {
	n := 0
	for _, c := range calls {
		if c.method == "eth_getTransactionReceipt" || c.method == "eth_getLogs" {
			n++
		}
	}
	return n
}
