package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry is nodegate's own registry (not the global one), so that tests
// and several services in one process do not collide. Every series is
// listed in docs/observability.md; keep the two in step.
type Registry struct {
	reg *prometheus.Registry

	// Failover counts calls answered by a partner.
	Failover *prometheus.CounterVec
	// UpstreamUp is 1 while an upstream is in service.
	UpstreamUp *prometheus.GaugeVec
	// UpstreamChanges counts upstreams going out of and back into service.
	UpstreamChanges *prometheus.CounterVec
	// Unavailable counts calls answered "upstream unavailable".
	Unavailable *prometheus.CounterVec
	// VerifyFailures counts upstream answers that failed a check
	// (docs/pools.md, "Answers verified before they leave").
	VerifyFailures *prometheus.CounterVec
	// HedgesSent counts hedged reads sent to an upstream, HedgesWon those
	// it answered first (docs/pools.md, "Hedged reads").
	HedgesSent, HedgesWon *prometheus.CounterVec

	// Requests counts calls by network, method label, outcome code and
	// plan; RequestDuration is each call's time in the pipeline. Record
	// them with ObserveCall (calls.go), which keeps the label children.
	Requests        *prometheus.CounterVec
	RequestDuration *prometheus.HistogramVec
	// InFlight is the number of HTTP requests being served.
	InFlight prometheus.Gauge

	// UpstreamDuration is each attempt on an upstream; UpstreamErrors
	// counts failed attempts by class (ObserveAttempt, attempts.go).
	UpstreamDuration *prometheus.HistogramVec
	UpstreamErrors   *prometheus.CounterVec

	calls    callCache
	attempts attemptCache
	floors   floorsOnce // floors.go
}

// durationBuckets are the request and upstream latency buckets, seconds.
var durationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// New makes a registry with nodegate's metrics and the Go runtime's.
func New() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		Failover: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_failover_forwarded_total", Help: "Calls forwarded to a partner provider because the pool could not answer.",
		}, []string{"network", "partner", "method"}),
		UpstreamUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "nodegate_upstream_up", Help: "1 while the upstream is in service, 0 while it is out.",
		}, []string{"network", "upstream"}),
		UpstreamChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_state_changes_total", Help: "Upstreams going out of service (state=down) or back (state=up).",
		}, []string{"network", "upstream", "state"}),
		VerifyFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_verify_failures_total", Help: "Upstream answers that failed verification, by the check that failed (the upstream is quarantined).",
		}, []string{"network", "upstream", "check"}),
		HedgesSent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_hedges_total", Help: "Hedged reads sent to the upstream (its first upstream had not answered within the method's latency quantile, was hung or went out of service).",
		}, []string{"network", "upstream"}),
		HedgesWon: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_hedges_won_total", Help: "Hedged reads the upstream answered before the first upstream.",
		}, []string{"network", "upstream"}),
		Unavailable: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_unavailable_total", Help: "Calls answered 'upstream unavailable' (no node and no failover could answer).",
		}, []string{"network", "method"}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_requests_total", Help: "JSON-RPC calls answered, by network, method, outcome code and key plan; requests refused before any call was read count once with method (invalid).",
		}, []string{"network", "method", "code", "plan"}),
		RequestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "nodegate_request_duration_seconds", Help: "Time a call spent in nodegate's pipeline, from its first stage to its answer.", Buckets: durationBuckets,
		}, []string{"network", "method"}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "nodegate_http_requests_in_flight", Help: "HTTP JSON-RPC requests being served.",
		}),
		UpstreamDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "nodegate_upstream_request_duration_seconds", Help: "Time of one attempt on an upstream (failed attempts included).", Buckets: durationBuckets,
		}, []string{"network", "upstream"}),
		UpstreamErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_errors_total", Help: "Failed attempts on an upstream, by class (timeout, connect, http_5xx, http_429, http_status, bad_response, node_fault, cancelled, other).",
		}, []string{"network", "upstream", "class"}),
	}
	r.reg.MustRegister(r.Failover, r.UpstreamUp, r.UpstreamChanges, r.Unavailable, r.VerifyFailures, r.HedgesSent, r.HedgesWon,
		r.Requests, r.RequestDuration, r.InFlight, r.UpstreamDuration, r.UpstreamErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.calls.init()
	r.attempts.init()
	return r
}

// Register adds more collectors (other parts' metrics).
func (r *Registry) Register(cs ...prometheus.Collector) { r.reg.MustRegister(cs...) }

// Gatherer is the registry, for tests and other exporters.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves the metrics in Prometheus' text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}
