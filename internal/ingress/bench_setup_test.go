package ingress_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/upstream"
)

const benchKey = "0123456789abcdef0123456789abcdef"

// gatewayHandler is nodegate's HTTP handler with one key and one EVM
// network on up: the key check and the method rules run as in production.
// It is the only part of the benchmarks that knows how ingress is wired.
func gatewayHandler(b *testing.B, up upstream.Upstream) http.Handler {
	b.Helper()
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(b.TempDir(), "keys.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	// The team plan without a rate: the limiter runs (and is measured) but
	// never refuses the benchmark's load.
	plans := keys.DefaultPlans()
	plans[keys.PlanTeam] = keys.Plan{Name: keys.PlanTeam, Failover: true}
	ks, err := keys.NewCache(ctx, store, plans, keys.PlanTeam, []string{benchKey}, keys.CacheOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ks.Close)
	lim, err := ratelimit.New(ratelimit.Options{})
	if err != nil {
		b.Fatal(err)
	}
	usage := ratelimit.NewUsage(store, time.Second)
	b.Cleanup(func() { _ = usage.Close(context.Background()); _ = lim.Close() })
	meter := &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(nil), Usage: usage}
	n := &pipeline.Network{Name: "bench", Family: methods.FamilyEVM, Methods: methods.NewTable(methods.FamilyEVM), Upstream: up}
	if pool, ok := up.(*upstream.Pool); ok {
		n.Pool = pool // upstream batches
	}
	s := &ingress.Server{Keys: ks, Router: ingress.NewRouter(n), Pipeline: pipeline.Build(pipeline.Options{}), Metering: meter}
	s.SetReady(true)
	return s.Handler()
}
