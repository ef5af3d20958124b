package keys

import (
	"sync/atomic"
	"time"
)

// Record is a key as the store keeps it and as the CLI and the admin API
// show it. It never holds the plain key or the plain secret.
type Record struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Plan     string   `json:"plan"`
	Networks []string `json:"networks"`
	Status   Status   `json:"status"`
	// CreatedAt and LastUsedAt are UTC; LastUsedAt is nil for a key never
	// used. Uses reach the store a few seconds late (they are batched).
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	// RevokedAt is when the key was revoked (UTC), nil for a live key or
	// one revoked before schema version 6. An account's revoked keys are
	// purged after RevokedRetention, and beyond MaxRevokedPerAccount.
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	Security  Security   `json:"security"`
	// RatePerSecond and DailyCredits override the plan's limits for this
	// key; 0 keeps the plan's. The lower of plan and override applies.
	RatePerSecond float64 `json:"rate_per_second"`
	DailyCredits  int64   `json:"daily_credits"`
	// MethodRates are the key's own per-method rates in calls per second
	// (method → rate), on top of its credit rate.
	MethodRates map[string]float64 `json:"method_rates"`
	// Account is the customer account that owns the key ('' for a key
	// the operator made). Its plan is the account's (internal/accounts
	// changes both in one transaction), and its daily credits are counted
	// for the account across its keys.
	Account string `json:"account,omitempty"`
	// Hash is the key's SHA-256; it identifies the key in lookups.
	Hash Hash `json:"-"`
}

// Security is a key's optional security settings. Allowlists of different
// types combine with AND, entries of one type with OR; an empty list
// allows everything of its type.
type Security struct {
	// SecretHash is the SHA-256 of the key's secret, nil without a secret.
	SecretHash *Hash `json:"-"`
	// HasSecret is reported for display; SecretHash is what counts.
	HasSecret bool `json:"has_secret"`
	// SecretRequired: every request must carry the secret as HTTP Basic
	// auth with an empty user.
	SecretRequired bool `json:"secret_required"`
	// SecretBypassesAllowlists: a request with the correct secret skips
	// the method, contract, origin and user agent allowlists.
	SecretBypassesAllowlists bool     `json:"secret_bypasses_allowlists"`
	Methods                  []string `json:"allowed_methods"`
	// Contracts are lowercase 0x-prefixed addresses.
	Contracts []string `json:"allowed_contracts"`
	// Origins are [scheme://]host[:port] with an optional leading "*."
	// wildcard label.
	Origins []string `json:"allowed_origins"`
	// UserAgents match as substrings of the User-Agent header.
	UserAgents []string `json:"allowed_user_agents"`
	// IPs are the client addresses and CIDR prefixes (IPv4, IPv6) the key
	// may be used from, in canonical form (ParsePrefix). A secret never
	// lifts this list.
	IPs []string `json:"allowed_ips"`
	// JWTKeys are the public keys (at most MaxJWTKeys) a request's
	// "Authorization: Bearer" token may be signed with; JWTRequired
	// refuses a request without a good token.
	JWTKeys     []JWTKey `json:"jwt_keys"`
	JWTRequired bool     `json:"jwt_required"`
}

// MaxAllowlist is the most entries one allowlist may hold.
const MaxAllowlist = 30

// compile turns a record into the hot path's Key with its plan; lastUsed is
// carried over from an earlier snapshot when there is one.
func (r *Record) compile(plan Plan, lastUsed *atomic.Int64) *Key {
	if lastUsed == nil {
		lastUsed = new(atomic.Int64)
		if r.LastUsedAt != nil {
			lastUsed.Store(r.LastUsedAt.Unix())
		}
	}
	return &Key{
		ID:          r.ID,
		Name:        r.Name,
		Account:     r.Account,
		Plan:        plan,
		rate:        lowerLimit(plan.RatePerSecond, r.RatePerSecond),
		daily:       lowerLimit(plan.DailyCredits, r.DailyCredits),
		ownRate:     r.RatePerSecond > 0 && lowerLimit(plan.RatePerSecond, r.RatePerSecond) == r.RatePerSecond,
		ownDaily:    r.DailyCredits > 0 && lowerLimit(plan.DailyCredits, r.DailyCredits) == r.DailyCredits,
		methodRates: compileMethodRates(r.ID, r.MethodRates),
		Networks:    r.Networks,
		CreatedAt:   r.CreatedAt,
		hash:        r.Hash,
		security:    compileSecurity(&r.Security),
		lastUsed:    lastUsed,
	}
}

// normalize fills the derived and never-nil fields, so that JSON shows []
// rather than null and HasSecret matches SecretHash.
func (r *Record) normalize() {
	r.Security.HasSecret = r.Security.SecretHash != nil
	for _, l := range []*[]string{&r.Networks, &r.Security.Methods, &r.Security.Contracts, &r.Security.Origins, &r.Security.UserAgents, &r.Security.IPs} {
		if *l == nil {
			*l = []string{}
		}
	}
	if r.Security.JWTKeys == nil {
		r.Security.JWTKeys = []JWTKey{}
	}
	if r.MethodRates == nil {
		r.MethodRates = map[string]float64{}
	}
}

// lowerLimit is the stricter of a plan's limit and a key's override, where
// 0 means unlimited (plan) or not set (override).
func lowerLimit[T int64 | float64](plan, override T) T {
	if override > 0 && (plan <= 0 || override < plan) {
		return override
	}
	return plan
}
