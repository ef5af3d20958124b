package config

import (
	"fmt"
	"sort"
	"time"
)

// MethodLimits are the per-method limits of docs/spec.md ("Limits"): eth_getLogs
// results, parameters and duration, and the gas cap of eth_call and
// eth_estimateGas. A zero field inherits: the top-level values inherit
// docs/spec.md's (10000, 5000, 10s, 10), a plan's values inherit the top level.
// They are documented in docs/limits.md.
type MethodLimits struct {
	// GetLogsMaxResults is the most logs one eth_getLogs may return.
	GetLogsMaxResults int `yaml:"get_logs_max_results"`
	// GetLogsMaxParams bounds addresses plus topic values in one eth_getLogs.
	GetLogsMaxParams int `yaml:"get_logs_max_params"`
	// GetLogsTimeout bounds the duration of one eth_getLogs.
	GetLogsTimeout time.Duration `yaml:"get_logs_timeout"`
	// GasCapFactor caps the gas of eth_call/eth_estimateGas at this many
	// times the head block's gas limit.
	GasCapFactor int `yaml:"gas_cap_factor"`
}

// PlanLimits are per-plan overrides of the method limits, keyed by plan name.
type PlanLimits map[string]MethodLimits

// validateMethodLimits reports negative values (zero means "inherit").
func validateMethodLimits(path string, m MethodLimits, bad func(path, format string, a ...any)) {
	if m.GetLogsMaxResults < 0 {
		bad(path+".get_logs_max_results", "must not be negative, got %d", m.GetLogsMaxResults)
	}
	if m.GetLogsMaxParams < 0 {
		bad(path+".get_logs_max_params", "must not be negative, got %d", m.GetLogsMaxParams)
	}
	if m.GasCapFactor < 0 {
		bad(path+".gas_cap_factor", "must not be negative, got %d", m.GasCapFactor)
	}
	if m.GetLogsTimeout < 0 {
		bad(path+".get_logs_timeout", "must not be negative, got %s", m.GetLogsTimeout)
	}
}

// validateLimits checks the method limits and every plan override, in a
// stable order so that errors read the same on every run.
func (l *Limits) validateLimits(bad func(path, format string, a ...any)) {
	validateMethodLimits("limits", l.MethodLimits, bad)
	l.Connections.validate(bad)
	names := make([]string, 0, len(l.Plans))
	for name := range l.Plans {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := fmt.Sprintf("limits.plans.%s", name)
		if name == "" {
			bad(path, "a plan name must not be empty")
		}
		validateMethodLimits(path, l.Plans[name], bad)
	}
}
