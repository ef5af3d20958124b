package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one load run against one URL.
type Config struct {
	URL string
	// Host, when set, is the Host header of every request (a network
	// chosen by host name, e.g. starknet.localhost).
	Host        string
	Mix         *Mix
	Target      Target
	Concurrency int
	// Duration bounds the run; Requests, when positive, bounds it by the
	// number of HTTP requests instead.
	Duration time.Duration
	Requests int
	// Batch is the number of calls per HTTP request (1: single calls).
	Batch int
	// Warmup runs the same load first, unmeasured, so that connections are
	// open and the server is warm when measuring starts.
	Warmup time.Duration
	// Timeout bounds one HTTP request.
	Timeout time.Duration
	// PID, when set, is a process whose CPU is measured over the run.
	PID int
}

func (c *Config) check() error {
	switch {
	case c.URL == "":
		return errors.New("no url")
	case c.Mix == nil:
		return errors.New("no method mix")
	case c.Concurrency < 1 || c.Concurrency > 10000:
		return fmt.Errorf("concurrency %d: want 1..10000", c.Concurrency)
	case c.Batch < 1 || c.Batch > 10000:
		return fmt.Errorf("batch %d: want 1..10000", c.Batch)
	case c.Requests < 0:
		return fmt.Errorf("requests %d: want a positive count", c.Requests)
	case c.Requests == 0 && c.Duration <= 0:
		return errors.New("give a duration or a request count")
	}
	return c.Target.Validate()
}

// Result is what one run measured.
type Result struct {
	URL         string        `json:"url"`
	Mix         string        `json:"mix"`
	Concurrency int           `json:"concurrency"`
	Batch       int           `json:"batch"`
	Requests    int64         `json:"requests"` // HTTP requests completed
	Calls       int64         `json:"calls"`    // JSON-RPC calls completed (requests × batch)
	Elapsed     float64       `json:"elapsed_s"`
	RPS         float64       `json:"requests_per_s"`
	CallsPerS   float64       `json:"calls_per_s"`
	Latency     LatencyMicros `json:"latency_us"`
	Errors      Errors        `json:"errors"`
	// ServerCPU is the measured process's CPU over the run (when PID was given).
	ServerCPU *CPU `json:"server_cpu,omitempty"`
	// LoadCPU is this load generator's own CPU over the run.
	LoadCPU CPU `json:"load_cpu"`
}

// LatencyMicros is Latency in microseconds, for printing and JSON.
type LatencyMicros struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Errors counts failed requests and calls by kind.
type Errors struct {
	Transport int64  `json:"transport"` // no HTTP answer (refused, reset, timeout)
	HTTP      int64  `json:"http"`      // an HTTP status other than 200
	Malformed int64  `json:"malformed"` // a 200 whose body is not the expected JSON-RPC answer
	RPC       int64  `json:"rpc"`       // calls answered with a JSON-RPC error object
	First     string `json:"first,omitempty"`
}

// CPU is the CPU time a process used over a run.
type CPU struct {
	Seconds       float64 `json:"seconds"`
	UserSeconds   float64 `json:"user_seconds"`
	SystemSeconds float64 `json:"system_seconds"`
	MicrosPerCall float64 `json:"us_per_call"`
	// Cores is the average number of cores busy (CPU time / wall time).
	Cores float64 `json:"cores"`
}

// Run drives the load of cfg and measures it.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cl := newClient(cfg.URL, cfg.Concurrency, cfg.Timeout)
	cl.host = cfg.Host
	defer cl.close()
	if cfg.Warmup > 0 {
		warm := cfg
		warm.Duration, warm.Requests = cfg.Warmup, 0
		if _, err := drive(ctx, cl, warm); err != nil {
			return nil, err
		}
	}
	return drive(ctx, cl, cfg)
}

// worker state kept apart per goroutine, so that the hot loop shares nothing.
type worker struct {
	lat   []time.Duration
	errs  Errors
	calls int64
	body  []byte
}

func drive(ctx context.Context, cl *client, cfg Config) (*Result, error) {
	var (
		issued  atomic.Int64 // HTTP requests handed out (bounded by cfg.Requests)
		callSeq atomic.Uint64
		wg      sync.WaitGroup
	)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Requests == 0 {
		runCtx, cancel = context.WithTimeout(runCtx, cfg.Duration)
		defer cancel()
	}
	workers := make([]*worker, cfg.Concurrency)
	cpu0, err := startCPU(cfg.PID)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for i := range workers {
		w := &worker{}
		w.lat = make([]time.Duration, 0, 4096)
		workers[i] = w
		wg.Go(func() {
			for runCtx.Err() == nil {
				if cfg.Requests > 0 && issued.Add(1) > int64(cfg.Requests) {
					return
				}
				first := callSeq.Add(uint64(cfg.Batch)) - uint64(cfg.Batch)
				w.body = buildBody(w.body[:0], &cfg, first)
				t0 := time.Now()
				n, err := cl.do(runCtx, w.body, cfg.Batch)
				d := time.Since(t0)
				if err != nil && runCtx.Err() != nil && cfg.Requests == 0 {
					return // the run ended while this request was in flight: not a failure
				}
				w.record(d, n, err, cfg.Batch)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := cpu0.stop()
	if err != nil {
		return nil, err
	}
	return collect(&cfg, workers, elapsed, cpu1), nil
}

// buildBody makes the request body: one call, or a batch of cfg.Batch calls.
func buildBody(buf []byte, cfg *Config, first uint64) []byte {
	if cfg.Batch == 1 {
		return appendRequest(buf, first+1, cfg.Mix.Pick(first), &cfg.Target, first)
	}
	buf = append(buf, '[')
	for i := range uint64(cfg.Batch) {
		if i > 0 {
			buf = append(buf, ',')
		}
		n := first + i
		buf = appendRequest(buf, n+1, cfg.Mix.Pick(n), &cfg.Target, n)
	}
	return append(buf, ']')
}

func (w *worker) record(d time.Duration, rpcErrs int, err error, batch int) {
	var ce *callError
	switch {
	case err == nil:
		w.lat = append(w.lat, d)
		w.calls += int64(batch)
		w.errs.RPC += int64(rpcErrs)
		return
	case errors.As(err, &ce) && ce.kind == errHTTP:
		w.errs.HTTP++
	case errors.As(err, &ce) && ce.kind == errMalformed:
		w.errs.Malformed++
	default:
		w.errs.Transport++
	}
	if w.errs.First == "" {
		w.errs.First = err.Error()
	}
}

func collect(cfg *Config, workers []*worker, elapsed time.Duration, cpu cpuSpan) *Result {
	r := &Result{URL: redactURL(cfg.URL), Mix: cfg.Mix.String(), Concurrency: cfg.Concurrency, Batch: cfg.Batch, Elapsed: elapsed.Seconds()}
	var all []time.Duration
	for _, w := range workers {
		all = append(all, w.lat...)
		r.Calls += w.calls
		r.Errors.Transport += w.errs.Transport
		r.Errors.HTTP += w.errs.HTTP
		r.Errors.Malformed += w.errs.Malformed
		r.Errors.RPC += w.errs.RPC
		if r.Errors.First == "" {
			r.Errors.First = w.errs.First
		}
	}
	r.Requests = int64(len(all))
	r.RPS = float64(r.Requests) / elapsed.Seconds()
	r.CallsPerS = float64(r.Calls) / elapsed.Seconds()
	l := summarize(all)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	r.Latency = LatencyMicros{P50: us(l.P50), P90: us(l.P90), P99: us(l.P99), P999: us(l.P999), Max: us(l.Max), Mean: us(l.Mean)}
	r.LoadCPU = cpuOf(cpu.self, r.Calls, elapsed)
	if cfg.PID > 0 {
		c := cpuOf(cpu.server, r.Calls, elapsed)
		r.ServerCPU = &c
	}
	return r
}

func cpuOf(t ProcTimes, calls int64, elapsed time.Duration) CPU {
	d := t.Total()
	c := CPU{Seconds: d.Seconds(), UserSeconds: t.User.Seconds(), SystemSeconds: t.System.Seconds(), Cores: d.Seconds() / elapsed.Seconds()}
	if calls > 0 {
		c.MicrosPerCall = float64(d.Nanoseconds()) / 1e3 / float64(calls)
	}
	return c
}

// cpuSpan is the CPU used between startCPU and stop.
type cpuSpan struct {
	pid          int
	server, self ProcTimes
}

func startCPU(pid int) (cpuSpan, error) {
	s := cpuSpan{pid: pid, self: selfCPU()}
	if pid > 0 {
		d, err := ProcCPU(pid)
		if err != nil {
			return s, err
		}
		s.server = d
	}
	return s, nil
}

func (s cpuSpan) stop() (cpuSpan, error) {
	out := cpuSpan{pid: s.pid, self: selfCPU().minus(s.self)}
	if s.pid > 0 {
		d, err := ProcCPU(s.pid)
		if err != nil {
			return out, err
		}
		out.server = d.minus(s.server)
	}
	return out, nil
}
