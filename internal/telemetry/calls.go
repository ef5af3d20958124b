package telemetry

import (
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/prometheus/client_golang/prometheus"
)

// PlanNone is the plan label of a request without a key (refused before
// its key was known).
const PlanNone = "(none)"

// callCache keeps the label children of the per-call series, so that
// recording a call is two map reads under a read lock and a few atomic
// adds: no allocation once a network/method/plan has been seen.
type callCache struct {
	mu     sync.RWMutex
	counts map[countKey]prometheus.Counter
	durs   map[durKey]prometheus.Observer
}

type countKey struct {
	network, method, plan string
	code                  Code
}

type durKey struct{ network, method string }

func (c *callCache) init() {
	c.counts = map[countKey]prometheus.Counter{}
	c.durs = map[durKey]prometheus.Observer{}
}

// ObserveCall records one answered call. method is the name the client
// sent: it becomes a label only through methods.Label. A zero d records
// the count only (a call refused before it ran).
func (r *Registry) ObserveCall(network, method, plan string, code Code, d time.Duration) {
	label := methods.Label(method)
	r.count(countKey{network: network, method: label, plan: plan, code: code}).Inc()
	if d > 0 {
		r.duration(durKey{network: network, method: label}).Observe(d.Seconds())
	}
}

func (r *Registry) count(k countKey) prometheus.Counter {
	c := &r.calls
	c.mu.RLock()
	ctr, ok := c.counts[k]
	c.mu.RUnlock()
	if ok {
		return ctr
	}
	ctr = r.Requests.WithLabelValues(k.network, k.method, k.code.String(), k.plan)
	c.mu.Lock()
	c.counts[k] = ctr
	c.mu.Unlock()
	return ctr
}

func (r *Registry) duration(k durKey) prometheus.Observer {
	c := &r.calls
	c.mu.RLock()
	obs, ok := c.durs[k]
	c.mu.RUnlock()
	if ok {
		return obs
	}
	obs = r.RequestDuration.WithLabelValues(k.network, k.method)
	c.mu.Lock()
	c.durs[k] = obs
	c.mu.Unlock()
	return obs
}
