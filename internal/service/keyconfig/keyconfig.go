package keyconfig

import (
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
)

// Plans are the configured plans in the form the keys package uses.
func Plans(c *config.Config) map[string]keys.Plan {
	out := make(map[string]keys.Plan, len(c.Plans))
	for name, p := range c.Plans {
		out[name] = keys.Plan{Name: name, RatePerSecond: p.RatePerSecond, DailyCredits: p.DailyCredits, Failover: p.Failover,
			MaxResponseBytes: p.MaxResponseBytes, MaxInFlight: p.MaxInFlight, CallTimeout: p.CallTimeout,
			MaxWSConnections: p.MaxWSConnections, MaxSubscriptions: p.MaxSubscriptions}
	}
	return out
}

// Defaults are the plans of the default configuration (config.Defaults),
// in the form the keys package uses.
func Defaults() map[string]keys.Plan {
	c := config.Defaults()
	return Plans(&c)
}

// Store is where keys are kept.
func Store(c *config.Config) keys.StoreConfig {
	return keys.StoreConfig{DataDir: c.DataDir, DatabaseURL: c.DatabaseURL}
}
