package config

import (
	"fmt"
	"sort"

	"github.com/nodegate/nodegate/internal/plan"
)

// The per-method limits of docs/spec.md ("Limits") are plan.MethodLimits:
// eth_getLogs results, parameters and duration, and the gas cap. A zero
// field inherits: limits: inherits docs/spec.md's (10000, 5000, 10s, 10), a
// plan's own (plans.<name>.get_logs_max_results, …) inherit limits:. They
// are documented in docs/limits.md.

// PlanLimits are per-plan method limits keyed by plan name: the older
// spelling (limits.plans.<name>) of a plan's own method limits, folded into
// the plan by PlanSet.
type PlanLimits map[string]plan.MethodLimits

// validateLimits checks the method limits and every limits.plans entry, in
// a stable order so that errors read the same on every run. An entry must
// name a configured plan and must not set a field the plan sets otherwise.
func (c *Config) validateLimits(bad func(path, format string, a ...any)) {
	l := &c.Limits
	l.MethodLimits.Validate("limits", bad)
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
		l.Plans[name].Validate(path, bad)
		p, ok := c.Plans[name]
		if !ok {
			bad(path, "plan %q is not configured (plans:)", name)
			continue
		}
		for _, field := range p.MethodLimits.Conflicts(l.Plans[name]) {
			bad(path+"."+field, "also set, to another value, in plans.%s.%s: set it in one place (plans:)", name, field)
		}
	}
}

// PlanSet is every configured plan, named, with the method limits of
// limits.plans folded in: the plans as keys are granted them (and as they
// are written to the key store).
func (c *Config) PlanSet() map[string]plan.Plan {
	out := make(map[string]plan.Plan, len(c.Plans))
	for name, p := range c.Plans {
		p.Name = name
		p.MethodLimits = p.MethodLimits.Over(c.Limits.Plans[name])
		out[name] = p
	}
	return out
}
