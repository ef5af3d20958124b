package gatewaytest

import (
	"bytes"
	"context"
	"fmt"
	"github.com/nodegate/nodegate/internal/bench"
	"io"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
)

// Key is the one key the gateway accepts.
const Key = "0123456789abcdef0123456789abcdef"

// Team is the plan of the gateway's key by default: the team plan without
// a rate, so that the limiter runs (and is measured) but never refuses a
// benchmark's load.
var Team = keys.Plan{Name: config.PlanTeam, Failover: true}

// Server is the gateway in front of n, its key on Team. Its fields may be
// changed before use (another pipeline, metering wrapped by an observer).
func Server(b testing.TB, n *pipeline.Network) *ingress.Server {
	b.Helper()
	return ServerOn(b, n, Team)
}

// ServerOn is Server with its key on the plan team (named config.PlanTeam).
func ServerOn(b testing.TB, n *pipeline.Network, team keys.Plan) *ingress.Server {
	b.Helper()
	s, closeAll, err := New(b.TempDir(), n, team)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(closeAll)
	return s
}

// New is ServerOn for a caller without a testing.TB (a TestMain): its key
// store is a SQLite file in dir, and closeAll releases what it holds.
func New(dir string, n *pipeline.Network, team keys.Plan) (s *ingress.Server, closeAll func(), err error) {
	ctx := context.Background()
	var closers []func()
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	store, err := keys.OpenSQLite(ctx, filepath.Join(dir, "keys.db"))
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, func() { store.Close() })
	plans := keyconfig.Defaults()
	team.Name = config.PlanTeam
	plans[config.PlanTeam] = team
	ks, err := keys.NewCache(ctx, store, plans, config.PlanTeam, []string{Key}, keys.CacheOptions{})
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, ks.Close)
	lim, err := ratelimit.New(ratelimit.Options{})
	if err != nil {
		return nil, nil, err
	}
	usage := ratelimit.NewUsage(store, time.Second)
	closers = append(closers, func() { _ = usage.Close(context.Background()); _ = lim.Close() })
	meter := &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(nil), Usage: usage}
	s = &ingress.Server{Keys: ks, Router: ingress.NewRouter(n), Pipeline: pipeline.Build(pipeline.Options{}), Metering: ingress.RateMeter{Meter: meter}}
	s.SetReady(true)
	return s, closeAll, nil
}

// HashBodies are n eth_getTransactionByHash requests, each a batch of
// batch calls when batch > 1, asking for the load tool's static upstream's
// transactions (bench.StaticHashes: distinct over bench.StaticTxCount
// calls), which it answers with real signed transactions.
func HashBodies(n, batch int) [][]byte {
	hashes := bench.StaticHashes()
	out := make([][]byte, n)
	for i := range out {
		var buf bytes.Buffer
		if batch > 1 {
			buf.WriteByte('[')
		}
		for j := range batch {
			if j > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"method":"eth_getTransactionByHash","params":["%s"]}`, j+1, hashes[(i*batch+j)%len(hashes)])
		}
		if batch > 1 {
			buf.WriteByte(']')
		}
		out[i] = buf.Bytes()
	}
	return out
}

// sink is the smallest ResponseWriter. It takes the write deadlines and
// flushes of a streamed answer (one over 64 KiB) as a connection would.
type sink struct {
	h      http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header              { return s.h }
func (s *sink) WriteHeader(code int)             { s.status = code }
func (s *sink) Write(p []byte) (int, error)      { s.n += len(p); return len(p), nil }
func (s *sink) Flush()                           {}
func (s *sink) SetWriteDeadline(time.Time) error { return nil }

// ServeDirect posts bodies to h in turn, calls calls each, for b.N
// requests, and reports µs/call (wall time) and cpu-µs/call (the process's
// CPU time, the GC's included: unlike wall time it does not count the time
// other processes hold the CPU).
func ServeDirect(b *testing.B, h http.Handler, bodies [][]byte, calls int) {
	b.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v3/"+Key, nil)
	req.Header.Set("Content-Type", "application/json")
	rd := bytes.NewReader(nil)
	req.Body = io.NopCloser(rd)
	w := &sink{h: make(http.Header)}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		rd.Reset(bodies[i%len(bodies)])
		clear(w.h)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.n < 100*calls {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls)/1e3, "µs/call")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*calls)/1e3, "cpu-µs/call")
}

// cpuTime is the process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
