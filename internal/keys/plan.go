package keys

// Plan is what a key's plan grants. Plans are defined in the configuration
// (plans:); these are their resolved values.
type Plan struct {
	Name string `json:"name"`
	// RatePerSecond is the sustained credit rate; 0 means unlimited.
	RatePerSecond float64 `json:"rate_per_second"`
	// DailyCredits is the credit budget per UTC day; 0 means unlimited.
	DailyCredits int64 `json:"daily_credits"`
	// Failover allows forwarding eligible methods to a partner provider
	// (SPEC.md: upper-tier plans only).
	Failover bool `json:"failover"`
	// MaxWSConnections bounds the key's open WebSockets (per replica); 0
	// means unlimited. Over it, an upgrade answers 429.
	MaxWSConnections int `json:"max_ws_connections"`
}

// The default plan names (DESIGN.md, Vocabulary).
const (
	PlanCore       = "core"
	PlanDeveloper  = "developer"
	PlanTeam       = "team"
	PlanEnterprise = "enterprise"
)

// DefaultPlans are the plans nodegate knows without configuration: two
// lower tiers, the middle tier (the default for generated and ops keys)
// and the top, custom tier, which is unlimited until configured.
func DefaultPlans() map[string]Plan {
	return map[string]Plan{
		PlanCore:       {Name: PlanCore, RatePerSecond: 500, DailyCredits: 3_000_000, MaxWSConnections: 50},
		PlanDeveloper:  {Name: PlanDeveloper, RatePerSecond: 4_000, DailyCredits: 15_000_000, MaxWSConnections: 250},
		PlanTeam:       {Name: PlanTeam, RatePerSecond: 40_000, DailyCredits: 75_000_000, Failover: true, MaxWSConnections: 1_000},
		PlanEnterprise: {Name: PlanEnterprise, Failover: true},
	}
}
