package ratelimit

import "github.com/prometheus/client_golang/prometheus"

// metrics are the limiter's Prometheus series.
type metrics struct {
	refused *prometheus.CounterVec
	shared  prometheus.Gauge
}

func newMetrics() *metrics {
	return &metrics{
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_ratelimit_refused_total", Help: "Requests answered 429, by reason (rate, daily) and network.",
		}, []string{"reason", "network"}),
		shared: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "nodegate_ratelimit_shared", Help: "1 while limits are decided in Redis (shared by the fleet), 0 while local.",
		}),
	}
}

// Collectors are the limiter's metrics, to register with the service's registry.
func (l *Limiter) Collectors() []prometheus.Collector {
	return []prometheus.Collector{l.metrics.refused, l.metrics.shared}
}
