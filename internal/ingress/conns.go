package ingress

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// ConnLimits bound the connections of the client listeners, so that
// connections that never show a key cannot take the process's descriptors
// (docs/limits.md, "Connections"; ConnGuard closes the idle ones).
type ConnLimits struct {
	// MaxPerListener bounds one listener's open connections (0: none but
	// the shared budget).
	MaxPerListener int
	// MaxPerIP bounds one client address's open connections on a listener
	// that have not shown a valid key (0: none): a connection that has is
	// bounded by its key's plan instead (keyConn gives its place back).
	MaxPerIP int
}

// ConnBudget is the connections every client listener of the process may
// hold together: the descriptors left once those kept in reserve (for the
// key store, Redis, the upstreams, the admin and metrics listeners) are
// set aside. Made once per process.
type ConnBudget struct {
	max  int64
	open atomic.Int64
	// refused counts the connections closed at accept, by the bound that
	// refused them (refusedBy's labels).
	refused   *prometheus.CounterVec
	refusedBy [len(refusalBounds)]prometheus.Counter
}

// The bounds a connection is refused by at accept (the bound label of
// nodegate_connections_refused_total).
type refusal int

const (
	refusedListener refusal = iota // max_per_listener
	refusedAddress                 // max_per_ip
	refusedBudget                  // the descriptor budget
)

var refusalBounds = [...]string{refusedListener: "listener", refusedAddress: "address", refusedBudget: "budget"}

// NewConnBudget allows max connections in all (0: no bound).
func NewConnBudget(max int) *ConnBudget {
	b := &ConnBudget{max: int64(max), refused: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "nodegate_connections_refused_total",
		Help: "Client connections closed as soon as they were accepted, by the bound that refused them: listener (max_per_listener), address (max_per_ip) or budget (the descriptor budget).",
	}, []string{"bound"})}
	for i, label := range refusalBounds {
		b.refusedBy[i] = b.refused.WithLabelValues(label)
	}
	return b
}

// Collectors are the budget's metrics, to register with the service's
// registry (once per process, as the budget is made).
func (b *ConnBudget) Collectors() []prometheus.Collector {
	return []prometheus.Collector{b.refused}
}

// fill is the share of the budget held now (0 without a bound).
func (b *ConnBudget) fill() float64 {
	if b == nil || b.max <= 0 {
		return 0
	}
	return float64(b.open.Load()) / float64(b.max)
}

// Open is the connections held now.
func (b *ConnBudget) Open() int64 { return b.open.Load() }

// Max is the bound (0: none).
func (b *ConnBudget) Max() int64 { return b.max }
