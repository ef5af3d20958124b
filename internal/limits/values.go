package limits

import (
	"math"
	"time"
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

// Spec returns docs/spec.md's values ("Limits").
func Spec() Values {
	return Values{GetLogsMaxResults: 10_000, GetLogsMaxParams: 5_000, GetLogsTimeout: 10 * time.Second, GasCapFactor: 10}
}

// over fills the zero fields of v from base.
func (v Values) over(base Values) Values {
	if v.GetLogsMaxResults == 0 {
		v.GetLogsMaxResults = base.GetLogsMaxResults
	}
	if v.GetLogsMaxParams == 0 {
		v.GetLogsMaxParams = base.GetLogsMaxParams
	}
	if v.GetLogsTimeout == 0 {
		v.GetLogsTimeout = base.GetLogsTimeout
	}
	if v.GasCapFactor == 0 {
		v.GasCapFactor = base.GasCapFactor
	}
	return v
}

// GasCap is the cap for a head gas limit; it saturates instead of wrapping.
func (v Values) GasCap(headGasLimit uint64) uint64 {
	if v.GasCapFactor != 0 && headGasLimit > math.MaxUint64/v.GasCapFactor {
		return math.MaxUint64
	}
	return headGasLimit * v.GasCapFactor
}

// Set holds one network's limits: its own values and per-plan overrides,
// resolved once so that the hot path does one map lookup.
type Set struct {
	def   Values
	plans map[string]Values
}

// NewSet resolves def over docs/spec.md's values and each plan over def.
func NewSet(def Values, plans map[string]Values) *Set {
	s := &Set{def: def.over(Spec()), plans: make(map[string]Values, len(plans))}
	for name, v := range plans {
		s.plans[name] = v.over(s.def)
	}
	return s
}

// For returns the values for a plan; a nil set means docs/spec.md's values.
func (s *Set) For(plan string) Values {
	if s == nil {
		return Spec()
	}
	if v, ok := s.plans[plan]; ok {
		return v
	}
	return s.def
}

// MaxGasCapFactor is the largest factor of the network and its plans: a node
// behind nodegate must allow at least that much, or it would lower further
// what nodegate let through.
func (s *Set) MaxGasCapFactor() uint64 {
	if s == nil {
		return Spec().GasCapFactor
	}
	m := s.def.GasCapFactor
	for _, v := range s.plans {
		m = max(m, v.GasCapFactor)
	}
	return m
}
