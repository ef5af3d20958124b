package reorgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// Case is one run of the harness: members (over ws:// or http://) fed by
// the script, and the system under test that Front starts in front of
// them (given the members' URLs, it returns its HTTP and WebSocket URLs).
type Case struct {
	Script  Script
	Members int
	WS      bool
	Front   func(t testing.TB, members []string) (httpURL, wsURL string)
	// Pollers is how many HTTP clients poll the front (default 2).
	Pollers int
	// Balancer, when the front is a fleet behind a balancer, starts
	// another of the same in front of targets (base URLs) and returns its
	// base URL: a client of the first member alone through it is the
	// second baseline (Result.Balanced).
	Balancer func(t testing.TB, targets []string) string
}

// Result is what a run found: through the front, and at the first member
// alone (the baseline: what a node itself does).
type Result struct {
	Front, Node Counts
	// Balanced is a client of the first member alone through the same
	// balancer as the front's (Case.Balancer): what a node gives a client
	// that reaches it as the fleet's clients reach the fleet, one hop
	// more than Node's. Zero (no answers) without a balancer.
	Balanced Counts
	Summary  Summary
	// SubscriptionsRefused: the front refused eth_subscribe (its
	// subscription counts are then empty).
	SubscriptionsRefused bool
	// WS: the members were reached over ws:// (they push their heads).
	WS bool
	// Pollers is how many HTTP clients polled the front (Front sums
	// theirs; Node is one client's).
	Pollers int
}

// Baseline is the single node's client that the front's clients are set
// against: the one through the front's balancer when it has one, else the
// one reaching the first member directly.
func (r Result) Baseline() Counts {
	if r.Balanced.Answers > 0 {
		return r.Balanced
	}
	return r.Node
}

// settleWithin bounds how long the front and its subscribers may take to
// show the final chain once every member is on it.
const settleWithin = 30 * time.Second

// Run plays c and returns its counts. The test fails when the harness
// itself cannot run (a node does not start, a member cannot import) or
// the front does not show the final chain within settleWithin.
func Run(t *testing.T, c Case) Result {
	t.Helper()
	b := NewBuilder(t)
	members := make([]*Member, max(c.Members, 1))
	urls := make([]string, len(members))
	for i := range members {
		members[i] = StartMember(t, b)
		urls[i] = members[i].HTTP()
		if c.WS {
			urls[i] = members[i].WS()
		}
	}
	frontHTTP, frontWS := c.Front(t, urls)
	tip, start := b.Tree.Tip()
	showsTip := func(url string) func() bool {
		p := NewPoller(url, b.Tree)
		return func() bool {
			r, ok := p.block(context.Background(), `"latest"`)
			return ok && r.Hash == tip
		}
	}
	testenv.WaitFor(t, settleWithin, "the front to show the builder's head", showsTip(frontHTTP))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := Result{WS: c.WS}
	var frontSub, nodeSub *Subscriber
	var err error
	if frontSub, err = Subscribe(ctx, frontWS, b.Tree, b.Contract); err != nil {
		t.Fatal(err)
	}
	if nodeSub, err = Subscribe(ctx, members[0].WS(), b.Tree, b.Contract); err != nil {
		t.Fatal(err)
	}
	res.SubscriptionsRefused = frontSub.Refused()
	pollers := []*Poller{NewPoller(members[0].HTTP(), b.Tree)}
	n := c.Pollers
	if n <= 0 {
		n = 2
	}
	for range n {
		pollers = append(pollers, NewPoller(frontHTTP, b.Tree))
	}
	var balanced *Poller
	if c.Balancer != nil {
		balanced = NewPoller(c.Balancer(t, []string{members[0].HTTP()}), b.Tree)
		pollers = append(pollers, balanced)
	}
	if os.Getenv(traceEnv) != "" {
		for i, p := range pollers {
			who := fmt.Sprintf("client %d of the front", i)
			switch {
			case i == 0:
				who = "the first member's client"
			case p == balanced:
				who = "the first member's client through the balancer"
			}
			p.Log = func(format string, args ...any) { t.Logf(who+": "+format, args...) }
		}
	}
	res.Pollers = n
	var wg sync.WaitGroup
	for _, p := range pollers {
		wg.Go(func() { p.Run(ctx) })
	}
	res.Summary, err = c.Script.Run(ctx, b, members)
	if err != nil {
		t.Fatalf("the script: %v", err)
	}
	tip, end := b.Tree.Tip()
	testenv.WaitFor(t, settleWithin, "the front to show the final head", showsTip(frontHTTP))
	canonical := b.Tree.CanonicalLogs(start)
	for _, s := range []*Subscriber{frontSub, nodeSub} {
		if !s.Refused() {
			within(settleWithin, func() bool { return s.Reached(tip, canonical) })
		}
	}
	cancel()
	wg.Wait()
	for i, p := range pollers {
		switch {
		case i == 0:
			res.Node.Add(p.C)
		case p == balanced:
			res.Balanced.Add(p.C)
		default:
			res.Front.Add(p.C)
		}
	}
	res.Node.Add(nodeSub.Counts(canonical))
	res.Front.Add(frontSub.Counts(canonical))
	res.Node.Add(staleCounts(members[0].HTTP(), b.Tree, start, end))
	res.Front.Add(staleCounts(frontHTTP, b.Tree, start, end))
	return res
}

// staleCounts asks url for every block and receipt from start to end by
// number, after every member switched: what is still answered from an
// abandoned branch.
func staleCounts(url string, tree *Tree, start, end uint64) Counts {
	p := NewPoller(url, tree)
	p.Stale(context.Background(), start, end)
	return Counts{StaleBlocks: p.C.StaleBlocks, StaleReceipts: p.C.StaleReceipts, Failed: p.C.Failed, FirstError: p.C.FirstError}
}

// within asks cond every 10 ms until it holds (true) or d passed
// (false): a wait whose outcome is reported, not asserted.
func within(d time.Duration, cond func() bool) bool {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-timeout.C:
			return false
		case <-tick.C:
		}
	}
	return true
}
