package config

import (
	"os"

	"github.com/nodegate/nodegate/internal/keys"
)

// AdminTokenEnv is the environment variable read when admin.token is empty.
const AdminTokenEnv = "NODEGATE_ADMIN_TOKEN"

func defaultPlans() map[string]Plan {
	out := map[string]Plan{}
	for name, p := range keys.DefaultPlans() {
		out[name] = Plan{RatePerSecond: p.RatePerSecond, DailyCredits: p.DailyCredits, Failover: p.Failover,
			MaxResponseBytes: p.MaxResponseBytes, MaxInFlight: p.MaxInFlight, CallTimeout: p.CallTimeout,
			MaxWSConnections: p.MaxWSConnections, MaxSubscriptions: p.MaxSubscriptions}
	}
	return out
}

// KeyPlans are the configured plans in the form the keys package uses.
func (c *Config) KeyPlans() map[string]keys.Plan {
	out := make(map[string]keys.Plan, len(c.Plans))
	for name, p := range c.Plans {
		out[name] = keys.Plan{Name: name, RatePerSecond: p.RatePerSecond, DailyCredits: p.DailyCredits, Failover: p.Failover,
			MaxResponseBytes: p.MaxResponseBytes, MaxInFlight: p.MaxInFlight, CallTimeout: p.CallTimeout,
			MaxWSConnections: p.MaxWSConnections, MaxSubscriptions: p.MaxSubscriptions}
	}
	return out
}

// AdminToken is admin.token, or $NODEGATE_ADMIN_TOKEN when that is empty.
func (c *Config) AdminToken() string {
	if c.Admin.Token != "" {
		return c.Admin.Token
	}
	return os.Getenv(AdminTokenEnv)
}

// KeyStore is where keys are kept.
func (c *Config) KeyStore() keys.StoreConfig {
	return keys.StoreConfig{DataDir: c.DataDir, DatabaseURL: c.DatabaseURL}
}
