package observe_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/logging"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/observe"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/upstream"
)

const benchKey = "0123456789abcdef0123456789abcdef"

// BenchmarkObserveOverhead is one eth_getTransactionByHash through the
// ingress, the pipeline and a pool over the static upstream's answers (no
// I/O), with observation off, with metrics, and with metrics and the JSON
// access log (to a file): the µs/call difference is what observing costs.
func BenchmarkObserveOverhead(b *testing.B) {
	for _, mode := range []string{"off", "metrics", "metrics+accesslog"} {
		b.Run(mode, func(b *testing.B) { serveDirect(b, gateway(b, mode)) })
	}
}

func gateway(b *testing.B, mode string) http.Handler {
	b.Helper()
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(b.TempDir(), "keys.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
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
	var meter ingress.Metering = &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(nil), Usage: usage}
	up := upstream.Func{ID: "static", Fn: func(_ context.Context, body []byte) ([]byte, error) { return bench.AnswerStatic(nil, body), nil }}
	pool := upstream.NewPool("bench", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: up})
	n := &pipeline.Network{Name: "bench", Family: methods.FamilyEVM, Methods: methods.NewTable(methods.FamilyEVM), Upstream: pool, Pool: pool}
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
		opts.Observer, pool.Observer, meter = obs, obs, obs.Metering(meter)
		wrap = func(h http.Handler) http.Handler {
			return obs.Middleware(func(string) string { return "bench" }, h)
		}
	}
	s := &ingress.Server{Keys: ks, Router: ingress.NewRouter(n), Pipeline: pipeline.Build(opts), Metering: meter}
	s.SetReady(true)
	return wrap(s.Handler())
}

type sink struct {
	h      http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.status = code }
func (s *sink) Write(p []byte) (int, error) { s.n += len(p); return len(p), nil }

func serveDirect(b *testing.B, h http.Handler) {
	bodies := make([][]byte, 1024)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["0x%064x"]}`, i+1)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v3/"+benchKey, nil)
	rd := bytes.NewReader(nil)
	req.Body = io.NopCloser(rd)
	w := &sink{h: make(http.Header)}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		rd.Reset(bodies[i%len(bodies)])
		clear(w.h)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.n < 100 {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
	// CPU time (all of the process's threads, the GC's included) per call:
	// unlike ns/op it does not count the time other processes hold the CPU.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e3, "cpu-µs/call")
}

// cpuTime is the process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
