package service

import (
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/limits"
)

// limitsOf builds a network's method limits from the configuration's
// limits: (the limits package knows nothing of the configuration's form).
// A plan's own method limits come with each call's key (key.Plan).
func limitsOf(l config.Limits) *limits.Set {
	return limits.NewSet(l.MethodLimits)
}
