package ratelimit

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the limiter's Prometheus series.
type metrics struct {
	// decisions is the one series of rate-limit decisions (meter.go).
	decisions *prometheus.CounterVec
	// decisionsOf holds each network's decision counters, resolved once
	// (network name → *[3]prometheus.Counter, by Outcome): a request
	// counts its decision without hashing label values.
	decisionsOf sync.Map
	shared      prometheus.Gauge
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

// decisionLabels are the decision label of each Outcome.
var decisionLabels = [...]string{OK: "admitted", RateExceeded: "rate", DailyExceeded: "daily"}

// decision is the counter of network's decisions with outcome o.
func (m *metrics) decision(network string, o Outcome) prometheus.Counter {
	v, ok := m.decisionsOf.Load(network)
	if !ok {
		var cs [len(decisionLabels)]prometheus.Counter
		for i, label := range decisionLabels {
			cs[i] = m.decisions.WithLabelValues(network, label)
		}
		v, _ = m.decisionsOf.LoadOrStore(network, &cs)
	}
	return v.(*[len(decisionLabels)]prometheus.Counter)[o]
}
