package ratelimit

import "github.com/prometheus/client_golang/prometheus"

// metrics are the limiter's Prometheus series.
type metrics struct {
	// decisions is the one series of rate-limit decisions (meter.go).
	decisions *prometheus.CounterVec
	shared    prometheus.Gauge
	// redisRTT times Redis round trips (redisrtt.go).
	redisRTT prometheus.Histogram
}

func newMetrics() *metrics {
	return &metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_ratelimit_decisions_total", Help: "Requests the rate limits and daily credits decided, by network and decision: admitted, or refused (429) by the rate (rate) or the daily credits (daily).",
		}, []string{"network", "decision"}),
		shared: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "nodegate_ratelimit_shared", Help: "1 while limits are decided in Redis (shared by the fleet), 0 while local.",
		}),
		redisRTT: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "nodegate_redis_roundtrip_seconds", Help: "Time of one Redis command or pipeline of the rate limiter (none without Redis).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25},
		}),
	}
}

// Collectors are the limiter's metrics, to register with the service's registry.
func (l *Limiter) Collectors() []prometheus.Collector {
	return []prometheus.Collector{l.metrics.decisions, l.metrics.shared, l.metrics.redisRTT}
}
