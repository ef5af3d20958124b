package fleethead_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/reorgtest"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestClientMovingBetweenReplicasNeverGoesBack: two replicas in front of
// the same two http:// members (heads polled every second), one member
// 0.9 s behind the other, each replica preferring its own member (a
// lower priority for the other: a replica beside each node), and a
// client that alternates replicas call by call (as behind a round-robin
// balancer). Each replica alone answers from its own member at its
// head, so the lagging one's answers go back from what the other gave;
// sharing heads through Redis, no answer is lower than one given before.
func TestClientMovingBetweenReplicasNeverGoesBack(t *testing.T) {
	rc := redistest.Require(t)
	for _, tc := range []struct {
		name  string
		redis bool
	}{
		{"each replica alone", false},
		{"sharing heads through Redis", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := reorgtest.NewBuilder(t)
			members := []*reorgtest.Member{reorgtest.StartMember(t, b), reorgtest.StartMember(t, b)}
			prefix := redistest.Prefix(t, rc)
			var urls []string
			var replicas []*service.Service
			for i := range 2 {
				cfg := servicetest.Config(t)
				cfg.NoStarknet = true
				if tc.redis {
					cfg.RateLimit.RedisURL, cfg.RateLimit.RedisPrefix = "redis://"+redistest.Addr()+"/0", prefix
				}
				cfg.Networks = []config.Network{{Name: "main", Family: "evm", Upstreams: []config.Upstream{
					{Name: "own", URL: members[i].HTTP()}, {Name: "other", URL: members[1-i].HTTP(), Priority: 1}}}}
				s := servicetest.Start(t, cfg)
				urls = append(urls, s.URL()+"/v3/"+s.GeneratedKey)
				replicas = append(replicas, s)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var c alternating
			wg.Go(func() { c.run(ctx, t, urls) })
			script := reorgtest.Script{BlockEvery: 300 * time.Millisecond, Duration: 8 * time.Second,
				Delays: []time.Duration{0, 900 * time.Millisecond}}
			sum, err := script.Run(ctx, b, members)
			cancel()
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d answers, %d lower than one given before (%d eth_blockNumber), %d failed (%s)",
				sum, c.answers, c.backwards, c.numberBacks, c.failed, c.firstError)
			if c.answers < 50 {
				t.Fatalf("only %d answers", c.answers)
			}
			if !tc.redis {
				return
			}
			if c.backwards != 0 || c.failed != 0 {
				t.Errorf("sharing heads: %d answers lower than one given before, %d failed", c.backwards, c.failed)
			}
			// The cost: Redis round trips go with heads, not with calls.
			for i, s := range replicas {
				trips := s.Fleet.RoundTrips()
				t.Logf("replica %d: %d Redis round trips for %d blocks and about %d calls (%.3f a call)", i, trips, sum.Blocks, c.answers/2, float64(trips)/float64(c.answers/2))
				if trips > int64(2*sum.Blocks+10) {
					t.Errorf("replica %d: %d Redis round trips for %d blocks, want at most two a block", i, trips, sum.Blocks)
				}
			}
		})
	}
}

// alternating is a client that sends each call to the next replica.
type alternating struct {
	answers, backwards, numberBacks, failed int
	firstError                              string
}

func (c *alternating) run(ctx context.Context, t *testing.T, urls []string) {
	client := &http.Client{Timeout: 30 * time.Second}
	var highest uint64
	for i := 0; ctx.Err() == nil; i++ {
		method, params := "eth_getBlockByNumber", `["latest",false]`
		if i%4 >= 2 {
			method, params = "eth_blockNumber", "[]"
		}
		status, body, err := testenv.Post(ctx, client, urls[i%len(urls)], testenv.RPCBody(method, params))
		if ctx.Err() != nil {
			return
		}
		n, perr := headOf(status, body, err, method)
		if perr != nil {
			c.failed++
			if c.firstError == "" {
				c.firstError = perr.Error()
			}
			continue
		}
		c.answers++
		if n < highest {
			c.backwards++
			if method == "eth_blockNumber" {
				c.numberBacks++
			}
		}
		highest = max(highest, n)
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// headOf reads the head number of an eth_getBlockByNumber or
// eth_blockNumber answer.
func headOf(status int, body []byte, err error, method string) (uint64, error) {
	if err != nil || status != http.StatusOK {
		return 0, fmt.Errorf("%s: HTTP %d %v %.200s", method, status, err, body)
	}
	var a testenv.Answer
	if err := json.Unmarshal(body, &a); err != nil || a.Error != nil {
		return 0, fmt.Errorf("%s: %.200s", method, body)
	}
	if method == "eth_blockNumber" {
		var n hexutil.Uint64
		err := json.Unmarshal(a.Result, &n)
		return uint64(n), err
	}
	var b struct {
		Number hexutil.Uint64 `json:"number"`
	}
	err = json.Unmarshal(a.Result, &b)
	return uint64(b.Number), err
}
