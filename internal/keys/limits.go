package keys

import (
	"math"
	"sort"

	"github.com/nodegate/nodegate/internal/methods"
)

// Bounds of a key's own limits: beyond them a value is a typo, not a plan.
const (
	maxRatePerSecond = 1e9
	maxDailyCredits  = 1 << 50
	// MaxMethodRates is how many methods one key may give a rate of their own.
	MaxMethodRates = MaxAllowlist
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
	return applyMethodRates(r, p.MethodRates)
}

// withinPlan refuses own limits above the plan's (0 is the plan's).
func withinPlan(r *Record, plan Plan) error {
	if plan.RatePerSecond > 0 && r.RatePerSecond > plan.RatePerSecond {
		return inputErrorf("rate_per_second: at most the plan's %g credits per second, got %g", plan.RatePerSecond, r.RatePerSecond)
	}
	if plan.DailyCredits > 0 && r.DailyCredits > plan.DailyCredits {
		return inputErrorf("daily_credits: at most the plan's %d, got %d", plan.DailyCredits, r.DailyCredits)
	}
	return nil
}

// applyMethodRates sets (a rate) or removes (0) the named methods' own
// rates, in calls per second.
func applyMethodRates(r *Record, change map[string]float64) error {
	if len(change) == 0 {
		return nil
	}
	next := make(map[string]float64, len(r.MethodRates)+len(change))
	for m, v := range r.MethodRates {
		next[m] = v
	}
	for m, v := range change {
		if !methods.ValidName(m) {
			return inputErrorf("method_rates: %q is not a JSON-RPC method name", m)
		}
		if math.IsNaN(v) || v < 0 || v > maxRatePerSecond {
			return inputErrorf("method_rates: %s: want 0 (remove) to %g calls per second, got %v", m, float64(maxRatePerSecond), v)
		}
		if v == 0 {
			delete(next, m)
			continue
		}
		next[m] = v
	}
	if len(next) > MaxMethodRates {
		return inputErrorf("method_rates: at most %d methods, got %d", MaxMethodRates, len(next))
	}
	r.MethodRates = next
	return nil
}

// MethodRate is one method's own rate on a key: at most Rate calls of
// Method per second. Subject names its bucket in the rate limiter (the
// key's id and the method: made once, when the key is compiled).
type MethodRate struct {
	Method  string
	Rate    float64
	Subject string
}

// compileMethodRates lists a record's method rates, sorted by method; nil
// when it has none.
func compileMethodRates(id string, rates map[string]float64) []MethodRate {
	if len(rates) == 0 {
		return nil
	}
	out := make([]MethodRate, 0, len(rates))
	for m, v := range rates {
		out = append(out, MethodRate{Method: m, Rate: v, Subject: id + ":m:" + m})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}

// MethodRates are the key's per-method rates (nil: none).
func (k *Key) MethodRates() []MethodRate { return k.methodRates }

// Names of the limits a refusal says it hit (docs/ratelimit.md).
const (
	LimitKeyRate   = "rate_per_second of this API key"
	LimitPlanRate  = "rate_per_second of the plan"
	LimitKeyDaily  = "daily_credits of this API key"
	LimitPlanDaily = "daily_credits of the plan"
)

// RateLimitName says whose limit the key's rate is: its own (set lower
// than the plan's) or its plan's.
func (k *Key) RateLimitName() string {
	if k.ownRate {
		return LimitKeyRate
	}
	return LimitPlanRate
}

// DailyLimitName says whose limit the key's daily credits are.
func (k *Key) DailyLimitName() string {
	if k.ownDaily {
		return LimitKeyDaily
	}
	return LimitPlanDaily
}
