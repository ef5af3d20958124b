package config

import (
	"os"
	"time"
)

// AdminTokenEnv is the environment variable read when admin.token is empty.
const AdminTokenEnv = "NODEGATE_ADMIN_TOKEN"

// The default plan names (docs/spec.md, Vocabulary). PlanTeam is the plan
// of api_keys and of the generated first key, so a configuration must
// define it.
const (
	PlanCore       = "core"
	PlanDeveloper  = "developer"
	PlanTeam       = "team"
	PlanEnterprise = "enterprise"
)

// CoreBurst is the core plan's burst: four seconds of its 500 credits per
// second, so that a new key sends a wallet's transaction at once, twice
// (ethers v6's Wallet.sendTransaction: eth_chainId four times, nonce, gas
// estimate, latest block, gas price, priority fee, block number and the
// raw transaction within a second, 970 credits; docs/ratelimit.md). The
// other plans' one second's worth already holds it.
const CoreBurst = 2_000

// defaultPlans are the plans nodegate knows without configuration: two
// lower tiers, the middle tier (the default for generated and ops keys)
// and the top, custom tier, which is unlimited until configured.
func defaultPlans() map[string]Plan {
	return map[string]Plan{
		PlanCore:       {RatePerSecond: 500, DailyCredits: 3_000_000, Burst: CoreBurst, MaxInFlight: 4, CallTimeout: time.Second, MaxWSConnections: 50, MaxSubscriptions: 100, MaxConnections: 100},
		PlanDeveloper:  {RatePerSecond: 4_000, DailyCredits: 15_000_000, MaxInFlight: 16, CallTimeout: 2 * time.Second, MaxWSConnections: 250, MaxSubscriptions: 1_000, MaxConnections: 500},
		PlanTeam:       {RatePerSecond: 40_000, DailyCredits: 75_000_000, Failover: true, MaxInFlight: 64, MaxWSConnections: 1_000, MaxSubscriptions: 10_000, MaxConnections: 2_000},
		PlanEnterprise: {Failover: true},
	}
}

// AdminToken is admin.token, or $NODEGATE_ADMIN_TOKEN when that is empty.
func (c *Config) AdminToken() string {
	if c.Admin.Token != "" {
		return c.Admin.Token
	}
	return os.Getenv(AdminTokenEnv)
}
