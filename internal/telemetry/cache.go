package telemetry

import "github.com/prometheus/client_golang/prometheus"

// CacheMetrics count the answer cache's hits and misses and the bytes it
// holds, per network.
type CacheMetrics struct {
	hits, misses *prometheus.CounterVec
	bytes        *prometheus.GaugeVec
}

// NewCacheMetrics registers the cache's metrics in r.
func NewCacheMetrics(r *Registry) *CacheMetrics {
	m := &CacheMetrics{
		hits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_cache_hits_total", Help: "Calls answered from the cache of final answers.",
		}, []string{"network"}),
		misses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nodegate_cache_misses_total", Help: "Cacheable calls not found in the cache.",
		}, []string{"network"}),
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "nodegate_cache_bytes", Help: "Memory held by the cache's entries.",
		}, []string{"network"}),
	}
	r.Register(m.hits, m.misses, m.bytes)
	return m
}

// For is the network's view, for the cache to report to.
func (m *CacheMetrics) For(network string) *NetworkCacheMetrics {
	return &NetworkCacheMetrics{hits: m.hits.WithLabelValues(network), misses: m.misses.WithLabelValues(network), bytes: m.bytes.WithLabelValues(network)}
}

// NetworkCacheMetrics are one network's cache metrics.
type NetworkCacheMetrics struct {
	hits, misses prometheus.Counter
	bytes        prometheus.Gauge
}

// Hit counts a hit.
func (m *NetworkCacheMetrics) Hit() { m.hits.Inc() }

// Miss counts a miss.
func (m *NetworkCacheMetrics) Miss() { m.misses.Inc() }

// Bytes sets the bytes held.
func (m *NetworkCacheMetrics) Bytes(n uint64) { m.bytes.Set(float64(n)) }
