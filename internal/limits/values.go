package limits

import (
	"math"
	"time"

	"github.com/nodegate/nodegate/internal/plan"
)

// Values are the limits that apply to one call.
type Values struct {
	// GetLogsMaxResults is the most logs one eth_getLogs returns.
	GetLogsMaxResults int
	// GetLogsMaxParams bounds addresses plus topic values of one eth_getLogs.
	GetLogsMaxParams int
	// GetLogsTimeout bounds one eth_getLogs, upstream work included.
	GetLogsTimeout time.Duration
	// GasCapFactor: eth_call/eth_estimateGas gas is capped at this many
	// times the head block's gas limit.
	GasCapFactor uint64
}

// spec is docs/spec.md's values ("Limits"), which limits: inherits.
var spec = plan.MethodLimits{GetLogsMaxResults: 10_000, GetLogsMaxParams: 5_000, GetLogsTimeout: 10 * time.Second, GasCapFactor: 10}

// Spec returns docs/spec.md's values ("Limits").
func Spec() Values { return valuesOf(spec) }

// GasCap is the cap for a head gas limit; it saturates instead of wrapping.
func (v Values) GasCap(headGasLimit uint64) uint64 {
	if v.GasCapFactor != 0 && headGasLimit > math.MaxUint64/v.GasCapFactor {
		return math.MaxUint64
	}
	return headGasLimit * v.GasCapFactor
}

// Set holds one network's method limits (limits:), resolved over
// docs/spec.md's once; a key's plan overrides them call by call (For).
// Which value wins is plan.MethodLimits.Over's rule.
type Set struct {
	def plan.MethodLimits
}

// NewSet resolves def over docs/spec.md's values.
func NewSet(def plan.MethodLimits) *Set {
	return &Set{def: def.Over(spec)}
}

// valuesOf is m in the form the limits apply (a negative factor, refused
// by validation, counts as unset).
func valuesOf(m plan.MethodLimits) Values {
	return Values{GetLogsMaxResults: m.GetLogsMaxResults, GetLogsMaxParams: m.GetLogsMaxParams, GetLogsTimeout: m.GetLogsTimeout, GasCapFactor: uint64(max(m.GasCapFactor, 0))}
}

// For returns the values for a plan's own method limits (a key's
// Plan.MethodLimits; zero for a call without a key): each field the plan
// sets, else the network's. A nil set means docs/spec.md's values under
// the plan's.
func (s *Set) For(own plan.MethodLimits) Values {
	if s == nil {
		return valuesOf(own.Over(spec))
	}
	return valuesOf(own.Over(s.def))
}

// MaxGasCapFactor is the largest factor of the network and the plans: a
// node behind nodegate must allow at least that much, or it would lower
// further what nodegate let through.
func (s *Set) MaxGasCapFactor(plans map[string]plan.Plan) uint64 {
	m := s.For(plan.MethodLimits{}).GasCapFactor
	for _, p := range plans {
		m = max(m, s.For(p.MethodLimits).GasCapFactor)
	}
	return m
}
