package reorgtest

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/servicetest"
)

// longEnv turns on the long form: 2 minutes per case.
const longEnv = "NODEGATE_REORG_LONG"

// target is one of issue 31's targets on a run through nodegate: a count
// and the most it may be. enforced targets fail the test; the others are
// reported (t.Log) until the work that meets them lands: turning one on
// is setting its enforced to true.
type target struct {
	name     string
	count    func(r Result) int64
	max      int64
	enforced bool
	// pushed: enforced only with ws:// members (they push every head; a
	// pool polling http:// members every 200 ms may never see a block
	// that was a member's head for less, so it owes no removal for logs
	// it never sent — "abandoned logs left live" holds either way — nor
	// the fork point a node sets as its head again for a moment).
	pushed bool
}

var targets = []target{
	{"failed calls through nodegate", func(r Result) int64 { return r.Front.Failed }, 0, true, false},
	{"answers naming an abandoned block after the new branch was given", func(r Result) int64 { return r.Front.FlipBacks }, 0, true, false},
	{"latest going back on its own branch", func(r Result) int64 { return r.Front.BackwardsHeads }, 0, true, false},
	{"safe going back", func(r Result) int64 { return r.Front.SafeBacks }, 0, true, false},
	{"finalized going back", func(r Result) int64 { return r.Front.FinalizedBacks }, 0, true, false},
	{"blocks of an abandoned branch served at the end", func(r Result) int64 { return r.Front.StaleBlocks }, 0, true, false},
	{"receipts of an abandoned branch served at the end", func(r Result) int64 { return r.Front.StaleReceipts }, 0, true, false},
	{"answers naming a block no node made", func(r Result) int64 { return r.Front.Unknown }, 0, true, false},
	{"subscriptions refused", func(r Result) int64 { return r.Front.SubRefused }, 0, true, false},
	{"newHeads gaps", func(r Result) int64 { return r.Front.HeadGaps - r.Node.HeadGaps }, 0, true, false},
	{"newHeads repeats beyond the node's", func(r Result) int64 { return r.Front.HeadRepeats - r.Node.HeadRepeats }, 0, true, false},
	{"fork-point heads the node re-sent, dropped", func(r Result) int64 { return r.Node.HeadRepeats - r.Front.HeadRepeats }, 0, true, true},
	{"newHeads flip-backs", func(r Result) int64 { return r.Front.HeadFlipBacks }, 0, true, false},
	{"logs removed: true missed against the node's", func(r Result) int64 { return r.Node.LogsRemoved - r.Front.LogsRemoved }, 0, true, true},
	{"live logs of an abandoned block after the new branch was given", func(r Result) int64 { return r.Front.LogFlipBacks }, 0, true, false},
	{"abandoned logs left live", func(r Result) int64 { return r.Front.LogsLeftLive }, 0, true, false},
	{"canonical logs never delivered", func(r Result) int64 { return r.Front.LogsMissing }, 0, true, false},
	// The lagging-pool matrix (matrix.go).
	{"receipts null after seen", func(r Result) int64 { return r.Front.NullAfterSeen }, 0, true, false},
	{"eth_getLogs errors", func(r Result) int64 { return r.Front.LogsErrors }, 0, true, false},
	// Reported until a replica's calls below another replica's head waited
	// for its members' next heads (upstream/canonbelow.go): 1 in 12,100
	// answers in a 2-minute fleet run before, 0 after.
	{"by-index nulls", func(r Result) int64 { return r.Front.ByIndexNulls }, 0, true, false},
	// "After a reorg to a shorter chain no call waits": calls over 200 ms
	// beyond the node's, per poller (reported: a loaded machine makes
	// calls that slow at the node too).
	{"calls that waited over 200 ms beyond the node's", func(r Result) int64 { return beyondNode(r, r.Baseline(), func(c Counts) int64 { return c.Waited }) }, 0, false, false},
}

// perMinute are the counts a client of nodegate may have no more of than
// a client of a single node reached the same way (Result.Baseline) plus
// 1.5 a minute (rounded up: 1 in a 20 s run). A mismatch is also what a
// node gives when the chain reorganises between the two calls, so its
// count grows with the time between them, which a balancer's hop
// lengthens: a fleet's clients are set against a client of the first
// member through the same balancer, and reported against the first
// member reached directly as well (judge). Front sums its pollers', so it
// is taken per poller (rounded up).
var perMinute = []struct {
	name  string
	count func(Counts) int64
}{
	{"latest→block mismatches", func(c Counts) int64 { return c.LatestMismatches }},
	{"receipt→block mismatches", func(c Counts) int64 { return c.ReceiptMismatches }},
}

// beyondNode is a count of the front's per poller (rounded up) less a
// single node's client's.
func beyondNode(r Result, node Counts, count func(Counts) int64) int64 {
	return perPoller(r, count(r.Front)) - count(node)
}

// perPoller is a count of the front's per poller, rounded up.
func perPoller(r Result, n int64) int64 {
	p := int64(max(r.Pollers, 1))
	return (n + p - 1) / p
}

// reorgScript is the builder's run: a block every 0.5 s, every fourth
// move a fork, the second member 1.5 s behind the first; 20 s, or 2
// minutes with NODEGATE_REORG_LONG set.
func reorgScript() Script {
	s := Script{BlockEvery: 500 * time.Millisecond, ForkEvery: 4, Duration: 20 * time.Second,
		Delays: []time.Duration{0, 1500 * time.Millisecond}}
	if os.Getenv(longEnv) != "" {
		s.Duration = 2 * time.Minute
	}
	return s
}

// TestReorgs: two go-ethereum members 1.5 s apart behind one nodegate,
// over http:// and ws://, while the builder forks to longer, equal and
// shorter chains; each target is checked (enforced) or reported.
func TestReorgs(t *testing.T) {
	for _, ws := range []bool{false, true} {
		name := "http"
		if ws {
			name = "ws"
		}
		t.Run(name+" members", func(t *testing.T) {
			judge(t, Run(t, Case{Script: reorgScript(), Members: 2, WS: ws, Front: startNodegate}), reorgScript())
		})
	}
}

// judge logs a run's counts and checks each target: enforced ones fail
// the test, the others (and those named in reported) are reported.
func judge(t *testing.T, r Result, script Script, reported ...string) {
	t.Helper()
	t.Logf("%s; %d blocks a minute", r.Summary, int(float64(r.Summary.Blocks)/script.Duration.Minutes()))
	t.Logf("through nodegate: %s", r.Front)
	t.Logf("the first member alone: %s", r.Node)
	pairs := fmt.Sprintf("through nodegate %s, the node %s", r.Front.MeanPair(), r.Node.MeanPair())
	if r.Balanced.Answers > 0 {
		t.Logf("the first member alone through the balancer: %s", r.Balanced)
		pairs += ", the node through the balancer " + r.Balanced.MeanPair().String()
	}
	t.Logf("a latest→block pair's mean time: %s", pairs)
	if len(r.Summary.Forks) < 3 {
		t.Errorf("only %d kinds of fork made: %v", len(r.Summary.Forks), r.Summary.Forks)
	}
	if r.Node.Answers == 0 || r.Front.Answers == 0 {
		t.Fatalf("no answers: node %d, nodegate %d", r.Node.Answers, r.Front.Answers)
	}
	minutes := script.Duration.Minutes()
	all := slices.Clone(targets)
	budget := int64(math.Ceil(1.5 * minutes))
	for _, pm := range perMinute {
		// A mismatch is also the chain reorganising between a client's two
		// calls, a window a loaded machine widens through nodegate more than
		// at the node: a 20 s run's budget of 1 was passed with 2 a client
		// in a loaded CI run (ws://, 0 flip-backs). Enforced in the 2-minute
		// form, reported in the short one.
		all = append(all, target{pm.name, func(r Result) int64 { return beyondNode(r, r.Baseline(), pm.count) },
			budget, os.Getenv(longEnv) != "", false})
		if r.Balanced.Answers > 0 {
			all = append(all, target{pm.name + " beyond the node's reached directly",
				func(r Result) int64 { return beyondNode(r, r.Node, pm.count) }, budget, false, false})
		}
	}
	for _, tg := range all {
		got := tg.count(r)
		switch {
		case got <= tg.max:
			t.Logf("holds: %s: %d (at most %d)", tg.name, got, tg.max)
		case tg.enforced && (!tg.pushed || r.WS) && !slices.Contains(reported, tg.name):
			t.Errorf("%s: %d, want at most %d", tg.name, got, tg.max)
		default:
			t.Logf("not yet (reported): %s: %d, target at most %d", tg.name, got, tg.max)
		}
	}
}

// TestReorgsInAFleet: the same run with two replicas sharing one Redis
// (the fleet's head, and the cache's second level) behind HAProxy (round
// robin, a new choice for each request and each WebSocket), over http://
// and ws:// members (issue 31's fleet).
func TestReorgsInAFleet(t *testing.T) {
	rc := redistest.Require(t)
	prefix := redistest.Prefix(t, rc)
	for _, ws := range []bool{false, true} {
		name := "http"
		if ws {
			name = "ws"
		}
		t.Run(name+" members", func(t *testing.T) {
			// The cache's Redis keys are under the network's name: one of
			// this run's own (every run's chain has the same genesis).
			network := "reorg-" + name + "-" + strings.TrimPrefix(prefix, "nodegate-test-")
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if keys, _ := rc.Keys(ctx, "nodegate:cache:"+network+":*").Result(); len(keys) > 0 {
					rc.Del(ctx, keys...)
				}
			})
			fleet := func(t testing.TB, members []string) (string, string) {
				var targets []string
				for range 2 {
					cfg := nodegateConfig(t, members)
					cfg.Networks[0].Name, cfg.Networks[0].Cache.RedisURL = network, "redis://"+redistest.Addr()+"/0"
					cfg.RateLimit.RedisURL, cfg.RateLimit.RedisPrefix = "redis://"+redistest.Addr()+"/0", prefix
					cfg.APIKeys = []string{fleetKey}
					targets = append(targets, servicetest.Start(t, cfg).URL())
				}
				front := HAProxy(t, targets)
				return front + "/v3/" + fleetKey, "ws" + strings.TrimPrefix(front, "http") + "/ws/v3/" + fleetKey
			}
			judge(t, Run(t, Case{Script: reorgScript(), Members: 2, WS: ws, Front: fleet, Balancer: HAProxy}), reorgScript(), fleetReported...)
		})
	}
}

// fleetReported are the targets a fleet's run reports rather than
// enforces: none now. latest→block mismatches were reported until a
// replica took another's head as a claim of the block at that height
// (upstream/canonclaim.go): before, a client sent to the replica a poll
// behind could be given an older block N after another's "latest" named N
// (two minutes, quiet machine: 8 a client against the node's 0; loaded,
// 2026-11-27: 8 a client against the node's 7). After, loaded: 4 a client
// against the node's 6 in two minutes, and the 2-minute form enforces it
// as it does for one replica.
var fleetReported []string

// fleetKey is the fleet's key, the same on each replica.
const fleetKey = "0123456789abcdef0123456789abcdef"

// startNodegate starts nodegate in front of the members and returns its
// HTTP and WebSocket URLs.
func startNodegate(t testing.TB, members []string) (string, string) {
	s := servicetest.Start(t, nodegateConfig(t, members))
	return s.URL() + "/v3/" + s.GeneratedKey, s.WSURL() + "/ws/v3/" + s.GeneratedKey
}

// nodegateConfig is one network over the members (heads polled every
// 200 ms), the team plan without a rate limit.
func nodegateConfig(t testing.TB, members []string) config.Config {
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	team := cfg.Plans[config.PlanTeam]
	team.RatePerSecond, team.DailyCredits = 0, 0
	cfg.Plans[config.PlanTeam] = team
	var ups []config.Upstream
	for i, u := range members {
		ups = append(ups, config.Upstream{Name: fmt.Sprintf("m%d", i), URL: u})
	}
	cfg.Networks = []config.Network{{Name: "main", Family: "evm", Upstreams: ups,
		Pool: config.Pool{HeadInterval: 200 * time.Millisecond}}}
	return cfg
}
