package service

import (
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/limits"
)

// limitsOf builds a network's method limits from the configuration (the
// limits package knows nothing of the configuration's form).
func limitsOf(l config.Limits) *limits.Set {
	plans := make(map[string]limits.Values, len(l.Plans))
	for name, m := range l.Plans {
		plans[name] = methodLimits(m)
	}
	return limits.NewSet(methodLimits(l.MethodLimits), plans)
}

func methodLimits(m config.MethodLimits) limits.Values {
	return limits.Values{GetLogsMaxResults: m.GetLogsMaxResults, GetLogsMaxParams: m.GetLogsMaxParams, GetLogsTimeout: m.GetLogsTimeout, GasCapFactor: uint64(max(m.GasCapFactor, 0))}
}
