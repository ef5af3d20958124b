package keys

import "math"

// Bounds of a key's own limits: beyond them a value is a typo, not a plan.
const (
	maxRatePerSecond = 1e9
	maxDailyCredits  = 1 << 50
)

// applyLimits validates and applies a patch's per-key limits.
func applyLimits(r *Record, p Patch) error {
	if v := p.RatePerSecond; v != nil {
		if math.IsNaN(*v) || *v < 0 || *v > maxRatePerSecond {
			return inputErrorf("rate_per_second: want 0 (the plan's) to %g credits per second, got %v", float64(maxRatePerSecond), *v)
		}
		r.RatePerSecond = *v
	}
	if v := p.DailyCredits; v != nil {
		if *v < 0 || *v > maxDailyCredits {
			return inputErrorf("daily_credits: want 0 (the plan's) to %d, got %d", int64(maxDailyCredits), *v)
		}
		r.DailyCredits = *v
	}
	return nil
}
