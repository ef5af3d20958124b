package plan

// Bad reports one invalid value: the configuration path of the field and
// what is wrong with it.
type Bad func(path, format string, a ...any)

// Validate reports each invalid field of the plan under path (plans.<name>).
// Zero is valid everywhere; negative values are not.
func (p Plan) Validate(path string, bad Bad) {
	if p.RatePerSecond < 0 {
		bad(path+".rate_per_second", "must not be negative")
	}
	if p.DailyCredits < 0 {
		bad(path+".daily_credits", "must not be negative")
	}
	if p.Burst < 0 {
		bad(path+".burst", "must not be negative (0 means one second's worth of rate_per_second)")
	}
	if p.MaxResponseBytes < 0 {
		bad(path+".max_response_bytes", "must not be negative (0 means %d)", DefaultMaxResponseBytes)
	}
	if p.MaxInFlight < 0 {
		bad(path+".max_in_flight", "must not be negative (0 means unlimited)")
	}
	if p.CallTimeout < 0 {
		bad(path+".call_timeout", "must not be negative (0 means %s)", DefaultCallTimeout)
	}
	if p.MaxWSConnections < 0 {
		bad(path+".max_ws_connections", "must not be negative")
	}
	if p.MaxSubscriptions < 0 {
		bad(path+".max_subscriptions", "must not be negative")
	}
	if p.MaxSubscriptionParams < 0 {
		bad(path+".max_subscription_params", "must not be negative (0 means %d)", DefaultMaxSubscriptionParams)
	}
	if p.MaxConnections < 0 {
		bad(path+".max_connections", "must not be negative (0 means unlimited)")
	}
	p.MethodLimits.Validate(path, bad)
}

// Validate reports each negative field under path (zero means inherit).
func (m MethodLimits) Validate(path string, bad Bad) {
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
