package plan

import "time"

// MethodLimits are the per-method limits of docs/spec.md ("Limits"):
// eth_getLogs results, parameters and duration, and the gas cap of the
// methods that run code. The configuration's limits: holds a network-wide
// set; a plan's own set overrides it field by field (0 inherits). They are
// documented in docs/limits.md.
type MethodLimits struct {
	// GetLogsMaxResults is the most logs one eth_getLogs may return.
	GetLogsMaxResults int `yaml:"get_logs_max_results" json:"get_logs_max_results,omitempty"`
	// GetLogsMaxParams bounds addresses plus topic values in one eth_getLogs.
	GetLogsMaxParams int `yaml:"get_logs_max_params" json:"get_logs_max_params,omitempty"`
	// GetLogsTimeout bounds the duration of one eth_getLogs.
	GetLogsTimeout time.Duration `yaml:"get_logs_timeout" json:"get_logs_timeout,omitempty"`
	// GasCapFactor caps the gas of the methods that run code at this many
	// times the head block's gas limit.
	GasCapFactor int `yaml:"gas_cap_factor" json:"gas_cap_factor,omitempty"`
}

// Over is m with each zero field taken from base.
func (m MethodLimits) Over(base MethodLimits) MethodLimits {
	if m.GetLogsMaxResults == 0 {
		m.GetLogsMaxResults = base.GetLogsMaxResults
	}
	if m.GetLogsMaxParams == 0 {
		m.GetLogsMaxParams = base.GetLogsMaxParams
	}
	if m.GetLogsTimeout == 0 {
		m.GetLogsTimeout = base.GetLogsTimeout
	}
	if m.GasCapFactor == 0 {
		m.GasCapFactor = base.GasCapFactor
	}
	return m
}

// Conflicts names (by their configuration names) the fields that m and o
// both set, to different values.
func (m MethodLimits) Conflicts(o MethodLimits) []string {
	var out []string
	if m.GetLogsMaxResults != 0 && o.GetLogsMaxResults != 0 && m.GetLogsMaxResults != o.GetLogsMaxResults {
		out = append(out, "get_logs_max_results")
	}
	if m.GetLogsMaxParams != 0 && o.GetLogsMaxParams != 0 && m.GetLogsMaxParams != o.GetLogsMaxParams {
		out = append(out, "get_logs_max_params")
	}
	if m.GetLogsTimeout != 0 && o.GetLogsTimeout != 0 && m.GetLogsTimeout != o.GetLogsTimeout {
		out = append(out, "get_logs_timeout")
	}
	if m.GasCapFactor != 0 && o.GasCapFactor != 0 && m.GasCapFactor != o.GasCapFactor {
		out = append(out, "gas_cap_factor")
	}
	return out
}
