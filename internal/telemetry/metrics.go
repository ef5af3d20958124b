package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry is nodegate's own registry (not the global one), so that tests
// and several services in one process do not collide.
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
}

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
		Unavailable: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_upstream_unavailable_total", Help: "Calls answered 'upstream unavailable' (no node and no failover could answer).",
		}, []string{"network", "method"}),
	}
	r.reg.MustRegister(r.Failover, r.UpstreamUp, r.UpstreamChanges, r.Unavailable,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Register adds more collectors (other parts' metrics).
func (r *Registry) Register(cs ...prometheus.Collector) { r.reg.MustRegister(cs...) }

// Handler serves the metrics in Prometheus' text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}
