package observe_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/logging"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/observe"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/upstream"
)

// BenchmarkObserveOverhead is one eth_getTransactionByHash through the
// ingress, the pipeline and a pool over the static upstream's answers (no
// I/O), with observation off, with metrics, and with metrics and the JSON
// access log (to a file): the µs/call difference is what observing costs.
func BenchmarkObserveOverhead(b *testing.B) {
	for _, mode := range []string{"off", "metrics", "metrics+accesslog"} {
		b.Run(mode, func(b *testing.B) { gatewaytest.ServeDirect(b, gateway(b, mode), gatewaytest.HashBodies(1024, 1), 1) })
	}
}

func gateway(b *testing.B, mode string) http.Handler {
	b.Helper()
	up := upstream.Func{ID: "static", Fn: func(_ context.Context, body []byte) ([]byte, error) { return bench.AnswerStatic(nil, body), nil }}
	pool := upstream.NewPool("bench", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: up})
	n := &pipeline.Network{Name: "bench", Methods: methods.NewTable(methods.FamilyEVM), Upstream: pool, Pool: pool}
	s := gatewaytest.Server(b, n)
	var opts pipeline.Options
	wrap := func(h http.Handler) http.Handler { return h }
	if mode != "off" {
		o := observe.Options{Metrics: telemetry.New()}
		if mode == "metrics+accesslog" {
			f, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
			if err != nil {
				b.Fatal(err)
			}
			buf := logging.NewBuffered(f, 100*time.Millisecond)
			b.Cleanup(func() { _ = buf.Close(); _ = f.Close() })
			if o.AccessLog, err = logging.New(config.Log{Format: "json", Output: buf}); err != nil {
				b.Fatal(err)
			}
		}
		obs := observe.New(o)
		opts.Observer, pool.Observer, s.Metering = obs, obs, obs.Metering(s.Metering)
		wrap = func(h http.Handler) http.Handler {
			return obs.Middleware(func(string) string { return "bench" }, h)
		}
	}
	s.Pipeline = pipeline.Build(opts)
	return wrap(s.Handler())
}
