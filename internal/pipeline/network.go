package pipeline

import (
	"sync"
	"sync/atomic"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/internal/upstream"
)

// Network is one chain behind nodegate: what every stage may need (its
// name, chain id and method table), its nodes, and the stages its family
// brings (internal/family decides which). What a family's stages need (limits, a gas limiter, a
// pending-pool reader) lives in those stages (families.go); what the route
// needs besides the nodes, in its Route.
type Network struct {
	Name    string
	ChainID uint64
	Methods *methods.Table
	// Upstream answers raw bodies: a network given only an Upstream gets
	// a pool of that one upstream (see init).
	Upstream upstream.Upstream
	// Pool chooses, retries and tracks the network's nodes: the route
	// sends calls to it, the batch collector its upstream batches, the
	// limits their internal reads.
	Pool *upstream.Pool
	// Partners answer the failover-eligible methods for plans that allow
	// it when the pool cannot (Route.FailoverMethods); nil when the
	// network has none.
	Partners *upstream.Pool
	// Subs serves eth_subscribe for WebSocket clients (nil: the network's
	// nodes cannot push, and eth_subscribe says so).
	Subs *subs.Hub
	// Stages are the stages the network's family brings (EVM.Stages,
	// Starknet.Stages), placed by the pipeline after the key policy
	// (stages.go). Nil: the EVM family's under docs/spec.md's limits
	// (EVM's zero value), for a network assembled by hand.
	Stages []Stage
	// Route is how calls reach the nodes: the cache, partner failover,
	// metrics (nil: none of them).
	Route *Route
	// Versions are the network in other versions of its JSON-RPC, by the
	// path segment that names them (/v3/<key>/rpc/v0_8): networks of the
	// same name over the same nodes, each reaching them in its version.
	// Nil: the network speaks one version, its default.
	Versions map[string]*Network

	once sync.Once
	// reads is how Read reaches the nodes, with the observer of the
	// pipeline that serves the network (read.go).
	reads atomic.Pointer[reads]
}

// Version is the network in the JSON-RPC version named v (Versions), or
// nil when it does not serve that version.
func (n *Network) Version(v string) *Network { return n.Versions[v] }

// GasLimiter knows the gas limit of a network's head block; 0 when unknown.
type GasLimiter interface {
	GasLimit() uint64
}

// init fills in, on first use, what a network assembled with less was not
// given: a pool of its one Upstream (no head tracking, and no upstream
// batches: a bare upstream may be a function of one request), a route
// without cache or failover, and the EVM family's stages under
// docs/spec.md's limits.
func (n *Network) init() {
	n.once.Do(func() {
		if n.Pool == nil {
			n.Pool = upstream.NewPool(n.Name, upstream.PoolConfig{}, upstream.MemberConfig{Upstream: n.Upstream, BatchSize: 1})
		}
		if n.Route == nil {
			n.Route = &Route{}
		}
		if n.Stages == nil {
			n.Stages = EVM{}.Stages()
		}
	})
}

// pool is the network's pool.
func (n *Network) pool() *upstream.Pool {
	n.init()
	return n.Pool
}

// route is the network's route.
func (n *Network) route() *Route {
	n.init()
	return n.Route
}
