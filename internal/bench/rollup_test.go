package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
)

// TestRunRollupByHost: the load tool reaches the rollup network of the
// embedded default by its host name, and every call is answered.
func TestRunRollupByHost(t *testing.T) {
	cfg := config.Ephemeral(t.TempDir())
	cfg.Plans["team"] = config.Plan{Failover: true} // no rate limit: this is about reaching the network
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := service.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	mix, err := bench.ParseMix("rollup_pendingTransactions=3,starknet_chainId=1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := bench.Run(ctx, bench.Config{URL: s.URL() + "/v3/" + s.GeneratedKey, Host: config.StarknetLocalHost, Mix: mix, Target: bench.Target{CallTo: bench.DefaultCallTo, CallFrom: bench.DefaultCallFrom, CallData: bench.DefaultCallData}, Concurrency: 4, Requests: 200, Batch: 1, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != 200 || r.Errors != (bench.Errors{}) {
		t.Fatalf("%d calls, errors %+v", r.Calls, r.Errors)
	}
}
