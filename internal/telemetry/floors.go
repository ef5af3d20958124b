package telemetry

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// FloorMetrics are the upstreams' floors (docs/pools.md, "Old blocks:
// state and logs floors"): the earliest block each serves state and logs
// for, and the calls answered without being sent because no upstream
// serves their block.
type FloorMetrics struct {
	From    *prometheus.GaugeVec
	Refused *prometheus.CounterVec
}

// floorsOnce makes a registry's FloorMetrics once.
type floorsOnce struct {
	once sync.Once
	m    *FloorMetrics
}

// Floors are the registry's floor metrics, registered at first use.
func (r *Registry) Floors() *FloorMetrics {
	r.floors.once.Do(func() {
		r.floors.m = &FloorMetrics{
			From: prometheus.NewGaugeVec(prometheus.GaugeOpts{
				Name: "nodegate_upstream_floor_block", Help: "The earliest block an upstream serves state (kind=state) or logs, receipts and block bodies (kind=logs) for, as configured, probed or learned from its answers.",
			}, []string{"network", "upstream", "kind"}),
			Refused: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "nodegate_upstream_floor_refused_total", Help: "Calls answered without being sent because no upstream serves the old block they name, by kind (state, logs).",
			}, []string{"network", "kind"}),
		}
		r.reg.MustRegister(r.floors.m.From, r.floors.m.Refused)
	})
	return r.floors.m
}

// FloorSource is what FloorMetrics.Watch follows: a pool's floor moves
// and refusals (internal/upstream.Pool), and its members' floors now.
type FloorSource interface {
	SetFloorHooks(moved func(member, kind string, from uint64), refused func(kind string))
	FloorsNow(fn func(member, kind string, from uint64))
}

// Watch keeps network's series in step with src's floors.
func (f *FloorMetrics) Watch(network string, src FloorSource) {
	src.SetFloorHooks(func(member, kind string, from uint64) {
		f.From.WithLabelValues(network, member, kind).Set(float64(from))
	}, func(kind string) {
		f.Refused.WithLabelValues(network, kind).Inc()
	})
	src.FloorsNow(func(member, kind string, from uint64) {
		f.From.WithLabelValues(network, member, kind).Set(float64(from))
	})
}
