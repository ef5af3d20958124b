package ratelimit_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/jsonrpc"
)

// backends are the variants measured: limits off (a plan without limits:
// calls are priced and counted, nothing is checked), in memory, in Redis.
// The limit is far above the load, so that every request is checked and
// served: what is measured is the cost of the check.
var backends = []struct {
	name  string
	rate  float64
	redis bool
}{
	{"off", 0, false},
	{"memory", 1e9, false},
	{"redis", 1e9, true},
}

// BenchmarkMeter is the hook's own cost per request (one eth_chainId):
// pricing, the limit check and the usage count.
func BenchmarkMeter(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			opts := ratelimit.Options{}
			if be.redis {
				c := redistest.Require(b)
				opts = ratelimit.Options{RedisURL: "redis://" + redistest.Addr() + "/0", Prefix: redistest.Prefix(b, c)}
			}
			lim, err := ratelimit.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer lim.Close()
			usage := ratelimit.NewUsage(discard{}, time.Hour)
			defer usage.Close(context.Background())
			m := &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(nil), Usage: usage}
			plans := map[string]keys.Plan{"p": {Name: "p", RatePerSecond: be.rate, DailyCredits: 1 << 40}}
			if be.rate == 0 {
				plans["p"] = keys.Plan{Name: "p"}
			}
			cache, err := keys.NewCache(context.Background(), nil, plans, "p", []string{keyA}, keys.CacheOptions{})
			if err != nil {
				b.Fatal(err)
			}
			key, _ := cache.Lookup(keyA)
			n := ratelimit.Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
			ok := &jsonrpc.Response{}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				calls := []ratelimit.Call{{Method: "eth_chainId"}}
				answers := []*jsonrpc.Response{ok}
				for pb.Next() {
					if e := m.Admit(context.Background(), key, n, calls, 0); e != nil {
						b.Fatal(e)
					}
					m.Record(key, n, calls, answers, 0)
				}
			})
		})
	}
}

type discard struct{}

func (discard) AddUsage(context.Context, []keys.UsageRow) error { return nil }

// BenchmarkHTTP is a whole request through nodegate (HTTP on loopback, the
// embedded node answering eth_chainId), with limits off, in memory, in
// Redis: compare ns/op between the variants for the added latency, and
// their inverse for the throughput ratio.
func BenchmarkHTTP(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			cfg := config.Ephemeral(b.TempDir())
			cfg.NoStarknet = true
			cfg.APIKeys = []string{keyA}
			cfg.Plans = map[string]config.Plan{config.PlanTeam: {RatePerSecond: be.rate}}
			if be.redis {
				c := redistest.Require(b)
				cfg.RateLimit.RedisURL = "redis://" + redistest.Addr() + "/0"
				cfg.RateLimit.RedisPrefix = redistest.Prefix(b, c)
			}
			s := startBench(b, cfg)
			url := s.URL() + "/v3/" + keyA
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
			b.SetParallelism(8) // 16 clients on 2 cores: requests overlap as under a load tool
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := hc.Post(url, "application/json", strings.NewReader(chainID))
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		})
	}
}
