package ratelimit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

const (
	keyA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	keyB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	// chainID costs 5 credits: at 100 credits/s a key is served 20 per second.
	chainID    = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
	chainIDCr  = 5
	adminToken = "ratelimit-test-admin-token"
)

// fleetConfig is one replica: its own data dir and ports, the static keys
// on plan team at rate credits/s, limits in Redis at redisAddr.
func fleetConfig(t *testing.T, redisAddr, prefix string, rate float64, daily int64) config.Config {
	cfg := config.Ephemeral(t.TempDir())
	cfg.NoStarknet = true
	cfg.APIKeys = []string{keyA, keyB}
	cfg.Plans = map[string]config.Plan{config.PlanTeam: {RatePerSecond: rate, DailyCredits: daily}}
	cfg.Admin.Token = adminToken
	if redisAddr != "" {
		// A generous Redis timeout: on a busy machine a slow round trip must
		// not pass for an outage (each switch to local limits starts a
		// fresh local burst); the cut tests close connections, which fails
		// at once whatever the timeout.
		cfg.RateLimit = config.RateLimit{RedisURL: "redis://" + redisAddr + "/0", RedisPrefix: prefix, RedisTimeout: time.Second, Heartbeat: 200 * time.Millisecond}
	}
	return cfg
}

// startService starts a replica that is closed when the test ends, unless
// the test closed it first with closeService.
func startService(t *testing.T, cfg config.Config) *service.Service {
	t.Helper()
	return startBench(t, cfg)
}

func startBench(t testing.TB, cfg config.Config) *service.Service {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := service.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { closeService(s) })
	return s
}

// closed are the services already closed: a service closes once.
var closed sync.Map

func closeService(s *service.Service) {
	if _, done := closed.LoadOrStore(s, true); done {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Close(ctx)
}

var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// post sends body with key and returns the status and body.
func post(t *testing.T, base, key, body string) (int, []byte) {
	status, b, err := testenv.Post(context.Background(), client, base+"/v3/"+key, body)
	if err != nil {
		t.Errorf("post: %v", err)
		return 0, nil
	}
	return status, b
}

// tally counts answers by status, with the 200s that arrived in a window.
type tally struct {
	ok, limited, other atomic.Int64
	mu                 sync.Mutex
	okAt               []time.Time
}

func (c *tally) add(status int) {
	switch status {
	case http.StatusOK:
		c.ok.Add(1)
		c.mu.Lock()
		c.okAt = append(c.okAt, time.Now())
		c.mu.Unlock()
	case http.StatusTooManyRequests:
		c.limited.Add(1)
	default:
		c.other.Add(1)
	}
}

func (c *tally) okBetween(from, to time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, at := range c.okAt {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// load offers requests from workers goroutines per base URL, each pausing
// pause between requests, until ctx ends.
func load(ctx context.Context, t *testing.T, bases []string, key string, workers int, pause time.Duration, c *tally) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, base := range bases {
		for range workers {
			wg.Go(func() {
				for ctx.Err() == nil {
					status, _ := post(t, base, key, chainID)
					if ctx.Err() == nil {
						c.add(status)
					}
					time.Sleep(pause)
				}
			})
		}
	}
	return &wg
}

func twoReplicas(t *testing.T, proxy *testenv.Proxy, rate float64, daily int64) (*service.Service, *service.Service, string) {
	c := redistest.Require(t)
	prefix := redistest.Prefix(t, c)
	a := startService(t, fleetConfig(t, proxy.Addr(), prefix, rate, daily))
	b := startService(t, fleetConfig(t, proxy.Addr(), prefix, rate, daily))
	testenv.WaitFor(t, 10*time.Second, "both replicas share Redis", func() bool {
		return a.Limiter.Shared() && b.Limiter.Shared() && a.Limiter.Replicas() == 2 && b.Limiter.Replicas() == 2
	})
	return a, b, prefix
}

// TestFleetSharesOneBudget: two replicas, one key at 100 credits/s, a load
// far above it on both; what both serve together over 10 s stays within
// 5% of the budget. A second key under its rate meanwhile is never refused.
func TestFleetSharesOneBudget(t *testing.T) {
	redistest.Require(t)
	proxy := testenv.NewProxy(t, redistest.Addr())
	a, b, _ := twoReplicas(t, proxy, 100, 0)
	bases := []string{a.URL(), b.URL()}

	ctx, cancel := context.WithCancel(context.Background())
	var flood, calm tally
	wgA := load(ctx, t, bases, keyA, 4, 5*time.Millisecond, &flood)
	wgB := load(ctx, t, bases[:1], keyB, 1, 100*time.Millisecond, &calm) // ≤ 10/s = 50 credits/s
	time.Sleep(time.Second)                                              // the burst is spent; from here the budget is the rate
	from := time.Now()
	time.Sleep(10 * time.Second)
	to := time.Now()
	cancel()
	wgA.Wait()
	wgB.Wait()

	served := flood.okBetween(from, to)
	budget := 100 * to.Sub(from).Seconds() / chainIDCr
	offered := flood.ok.Load() + flood.limited.Load()
	t.Logf("key A: offered %d requests in 11 s, served %d in the 10 s window (budget %.0f), refused %d; key B: served %d, refused %d",
		offered, served, budget, flood.limited.Load(), calm.ok.Load(), calm.limited.Load())
	if float64(offered) < 5*budget*1.1 {
		t.Fatalf("the load offered only %d requests: not far above the budget", offered)
	}
	if d := float64(served) - budget; d > 0.05*budget || d < -0.05*budget {
		t.Fatalf("served %d requests in 10 s across both replicas, budget %.0f: off by more than 5%%", served, budget)
	}
	if flood.other.Load() != 0 || calm.other.Load() != 0 {
		t.Fatalf("unexpected statuses: %d, %d", flood.other.Load(), calm.other.Load())
	}
	if calm.limited.Load() != 0 || calm.ok.Load() < 50 {
		t.Fatalf("key B (under its rate) was refused %d times, served %d: keys are not isolated", calm.limited.Load(), calm.ok.Load())
	}
}

// TestFleetSurvivesRedisOutage cuts Redis mid-run: both replicas keep
// serving on their share of the rate, then share Redis again.
func TestFleetSurvivesRedisOutage(t *testing.T) {
	rc := redistest.Require(t)
	proxy := testenv.NewProxy(t, redistest.Addr())
	a, b, prefix := twoReplicas(t, proxy, 100, 1_000_000)
	bases := []string{a.URL(), b.URL()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var flood tally
	wg := load(ctx, t, bases, keyA, 3, 5*time.Millisecond, &flood)
	defer wg.Wait()
	time.Sleep(time.Second)

	proxy.Cut()
	testenv.WaitFor(t, 10*time.Second, "both replicas on local limits", func() bool { return !a.Limiter.Shared() && !b.Limiter.Shared() })
	time.Sleep(300 * time.Millisecond) // each replica's local burst is spent
	from := time.Now()
	time.Sleep(3 * time.Second)
	served := flood.okBetween(from, time.Now())
	budget := 100 * 3.0 / chainIDCr
	t.Logf("Redis cut: served %d in 3 s (budget %.0f, each replica enforcing half)", served, budget)
	if float64(served) < 0.8*budget || float64(served) > 1.2*budget {
		t.Fatalf("during the outage both replicas served %d in 3 s, want about %.0f", served, budget)
	}

	proxy.Restore()
	testenv.WaitFor(t, 10*time.Second, "both replicas share Redis again", func() bool { return a.Limiter.Shared() && b.Limiter.Shared() })
	day := time.Now().UTC().Format("20060102")
	counter := prefix + ":d:" + keys.IDOf(keys.HashOf(keyA)) + ":" + day
	before, _ := rc.Get(context.Background(), counter).Int64()
	time.Sleep(time.Second)
	after, _ := rc.Get(context.Background(), counter).Int64()
	t.Logf("Redis back: the shared daily counter went %d → %d in 1 s", before, after)
	if after-before < 50 || after-before > 150+100 {
		t.Fatalf("shared counter grew by %d credits in 1 s, want about 100", after-before)
	}
	cancel()
	wg.Wait()
	if flood.other.Load() != 0 {
		t.Fatalf("%d answers were neither 200 nor 429: the outage broke service", flood.other.Load())
	}
}

// TestFleetDailyBudget spends the daily credits across two replicas; then
// every request is refused with the daily message.
func TestFleetDailyBudget(t *testing.T) {
	redistest.Require(t)
	proxy := testenv.NewProxy(t, redistest.Addr())
	a, b, _ := twoReplicas(t, proxy, 0, 100) // 20 eth_chainId a day
	served := 0
	for i := range 30 {
		base := a.URL()
		if i%2 == 1 {
			base = b.URL()
		}
		status, body := post(t, base, keyA, chainID)
		switch status {
		case http.StatusOK:
			served++
		case http.StatusTooManyRequests:
			var r struct {
				ID    json.RawMessage
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(body, &r); err != nil || r.Error.Code != -32005 || r.Error.Message != "daily request count exceeded, request rate limited" || string(r.ID) != "null" {
				t.Fatalf("refusal %s", body)
			}
		default:
			t.Fatalf("status %d: %s", status, body)
		}
	}
	if served != 20 {
		t.Fatalf("served %d eth_chainId on a 100-credit day across two replicas, want 20", served)
	}
	if status, _ := post(t, a.URL(), keyB, chainID); status != http.StatusOK {
		t.Fatalf("key B refused by key A's spending: %d", status)
	}
	// A batch is priced whole: 3×80 does not fit in key B's remaining 95.
	batch := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}]`
	if status, body := post(t, b.URL(), keyB, batch); status != http.StatusTooManyRequests || !bytes.HasPrefix(body, []byte(`{"jsonrpc":"2.0","id":null,"error"`)) {
		t.Fatalf("batch over the budget: %d %s", status, body)
	}
}
