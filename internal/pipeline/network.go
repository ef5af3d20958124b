package pipeline

import (
	"github.com/nodegate/nodegate/internal/methods"
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
}
