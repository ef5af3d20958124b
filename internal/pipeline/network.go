package pipeline

import (
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// Network is one chain behind nodegate: its method table and where calls go.
type Network struct {
	Name     string
	Family   methods.Family
	ChainID  uint64
	Methods  *methods.Table
	Upstream upstream.Upstream
	// Limits are the network's per-method limits, per plan (nil: SPEC.md's).
	Limits *limits.Set
	// Head knows the head block's gas limit, for the gas cap (nil: no cap
	// at the gateway, the node's own applies).
	Head GasLimiter
}

// GasLimiter knows the gas limit of a network's head block; 0 when unknown.
type GasLimiter interface {
	GasLimit() uint64
}
