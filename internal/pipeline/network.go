package pipeline

import (
	"sync"

	"github.com/nodegate/nodegate/internal/cache"
	"github.com/nodegate/nodegate/internal/coalesce"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/upstream"
)

// Network is one chain behind nodegate: its method table and where calls go.
type Network struct {
	Name    string
	Family  methods.Family
	ChainID uint64
	Methods *methods.Table
	// Upstream answers raw bodies (internal reads); it is the pool.
	Upstream upstream.Upstream
	// Pool chooses, retries and tracks the network's nodes.
	Pool *upstream.Pool
	// Partners answer the failover-eligible methods for plans that allow
	// it when the pool cannot; nil when the network has none.
	Partners *upstream.Pool
	// FailoverMethods are the methods eligible for partner failover.
	FailoverMethods map[string]bool
	// Metrics, when set, records failovers and unavailability.
	Metrics *telemetry.Registry
	// Limits are the network's per-method limits, per plan (nil: docs/spec.md's).
	Limits *limits.Set
	// Head knows the head block's gas limit, for the gas cap (nil: no cap
	// at the gateway, the node's own applies).
	Head GasLimiter
	// Subs serves eth_subscribe for WebSocket clients (nil: the network's
	// nodes cannot push, and eth_subscribe says so).
	Subs *subs.Hub
	// ExecutionShare, when positive, is how many eth_call/eth_estimateGas
	// one key may run at once: set where they run on this process's CPUs
	// (the embedded node), so that one key cannot take them all.
	ExecutionShare int
	// Cache keeps answers that can no longer change (nil: no cache).
	Cache *cache.Cache

	once sync.Once
	// coalesce shares identical reads in flight at once (route.go).
	coalesce coalesce.Group
	shares   sync.Map // key id → chan struct{} of ExecutionShare turns
}

// GasLimiter knows the gas limit of a network's head block; 0 when unknown.
type GasLimiter interface {
	GasLimit() uint64
}

// pool is the network's pool; a network given only an Upstream gets a
// pool of that one upstream (no head tracking, and no upstream batches: a
// bare upstream may be a function of one request), made on first use.
func (n *Network) pool() *upstream.Pool {
	n.once.Do(func() {
		if n.Pool == nil {
			n.Pool = upstream.NewPool(n.Name, upstream.PoolConfig{}, upstream.MemberConfig{Upstream: n.Upstream, BatchSize: 1})
		}
	})
	return n.Pool
}
