package keys

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Manager is the management side of keys, shared by the CLI and the admin
// API: it validates input against the configured plans and writes the store.
type Manager struct {
	Store Store
	// Plans are the configured plans; SetPlans replaces them while the
	// manager is in use (a configuration reload).
	Plans map[string]Plan
	// Now is the clock (tests may pin it); nil means time.Now.
	Now func() time.Time
	// Source, when set, gives the plans in force instead of Plans (a
	// running server's Cache: the key store's plans).
	Source interface{ Plans() map[string]Plan }
	// Local, when set, is this process's key cache: a change made through
	// the manager applies to it at once (Changed), while the other
	// replicas follow the store within key_refresh.
	Local interface{ Refresh(context.Context) error }

	plansMu sync.RWMutex
}

// Changed applies a change just stored to this process's key cache, so
// that a key revoked (or created, or changed) through this replica is
// refused (or served as changed) here from the next request on. A failed
// refresh is logged: the change is stored, and the cache's poll retries.
func (m *Manager) Changed(ctx context.Context) {
	if m.Local == nil {
		return
	}
	if err := m.Local.Refresh(ctx); err != nil {
		slog.Warn("keys: a change is stored but this replica's cache did not reload it; it follows within key_refresh", "err", err)
	}
}

// SetPlans replaces the plans keys are checked against.
func (m *Manager) SetPlans(plans map[string]Plan) {
	m.plansMu.Lock()
	m.Plans = plans
	m.plansMu.Unlock()
}

// plans are the plans now configured.
func (m *Manager) plans() map[string]Plan {
	if m.Source != nil {
		return m.Source.Plans()
	}
	m.plansMu.RLock()
	defer m.plansMu.RUnlock()
	return m.Plans
}

// CreateParams describe a new key.
type CreateParams struct {
	Name     string   `json:"name"`
	Plan     string   `json:"plan"`
	Networks []string `json:"networks"`
	// Secret makes a secret for the key (shown once, like the key).
	Secret bool `json:"secret"`
	// Settings applied at creation, as an update would.
	Settings Patch `json:"settings"`
}

// Created is a new key: the record and, shown once, the plain key and secret.
type Created struct {
	Record
	Key    string `json:"key"`
	Secret string `json:"secret,omitempty"`
}

// Patch changes a key; nil fields stay as they are. A list given replaces
// the list (an empty list clears it).
type Patch struct {
	Name     *string   `json:"name,omitempty"`
	Plan     *string   `json:"plan,omitempty"`
	Networks *[]string `json:"networks,omitempty"`
	// NewSecret makes a new secret (shown once); ClearSecret removes it.
	NewSecret                bool      `json:"new_secret,omitempty"`
	ClearSecret              bool      `json:"clear_secret,omitempty"`
	SecretRequired           *bool     `json:"secret_required,omitempty"`
	SecretBypassesAllowlists *bool     `json:"secret_bypasses_allowlists,omitempty"`
	AllowedMethods           *[]string `json:"allowed_methods,omitempty"`
	AllowedContracts         *[]string `json:"allowed_contracts,omitempty"`
	AllowedOrigins           *[]string `json:"allowed_origins,omitempty"`
	AllowedUserAgents        *[]string `json:"allowed_user_agents,omitempty"`
	// AllowedIPs replaces the address allowlist (addresses and CIDRs).
	AllowedIPs *[]string `json:"allowed_ips,omitempty"`
	// JWTKeys sets public keys by name (a PEM) or removes them (""); the
	// others stay. JWTRequired refuses requests without a good token.
	JWTKeys     map[string]string `json:"jwt_keys,omitempty"`
	JWTRequired *bool             `json:"jwt_required,omitempty"`
	// RatePerSecond and DailyCredits set the key's own limits (lower than
	// the plan's to matter); 0 returns the key to its plan's.
	RatePerSecond *float64 `json:"rate_per_second,omitempty"`
	DailyCredits  *int64   `json:"daily_credits,omitempty"`
	// MethodRates set methods' own rates in calls per second (0 removes
	// one); the other methods' stay.
	MethodRates map[string]float64 `json:"method_rates,omitempty"`
	// WithinPlan: the key's own rate and daily credits may not exceed its
	// plan's (a customer's change; the operator's may, to no effect).
	WithinPlan bool `json:"-"`
}

// Updated is a changed key, with the new secret when one was made.
type Updated struct {
	Record
	Secret string `json:"secret,omitempty"`
}

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now().UTC()
	}
	return time.Now().UTC()
}

// Create makes a key. The plain key (and secret) exist only in the result.
func (m *Manager) Create(ctx context.Context, p CreateParams) (Created, error) {
	c, err := m.prepare(p)
	if err != nil {
		return Created{}, err
	}
	return m.insert(ctx, c)
}

// prepare makes a key's record and plain text without storing it.
func (m *Manager) prepare(p CreateParams) (Created, error) {
	if p.Plan == "" {
		return Created{}, inputErrorf("plan: required (one of %s)", m.planNames())
	}
	plain, err := Generate()
	if err != nil {
		return Created{}, err
	}
	h := HashOf(plain)
	r := Record{ID: IDOf(h), Hash: h, Status: StatusActive, CreatedAt: m.now().Truncate(time.Millisecond)}
	patch := p.Settings
	patch.Name, patch.Plan, patch.Networks = &p.Name, &p.Plan, &p.Networks
	patch.NewSecret = patch.NewSecret || p.Secret
	secret, err := m.apply(&r, patch)
	if err != nil {
		return Created{}, err
	}
	return Created{Record: r, Key: plain, Secret: secret}, nil
}

// insert stores a prepared key.
func (m *Manager) insert(ctx context.Context, c Created) (Created, error) {
	if err := m.Store.Insert(ctx, c.Record); err != nil {
		return Created{}, err
	}
	m.Changed(ctx)
	c.normalize()
	return c, nil
}

// List returns every key, revoked ones included.
func (m *Manager) List(ctx context.Context) ([]Record, error) {
	return m.Store.List(ctx)
}

// Show returns one key by id.
func (m *Manager) Show(ctx context.Context, id string) (Record, error) {
	return m.Store.Get(ctx, id)
}

// Update changes a key's settings; a revoked key cannot be changed.
func (m *Manager) Update(ctx context.Context, id string, p Patch) (Updated, error) {
	var secret string
	r, err := m.Store.Modify(ctx, id, func(r *Record) error {
		if r.Status == StatusRevoked {
			return inputErrorf("key %s is revoked; revocation is final, create a new key", id)
		}
		s, err := m.apply(r, p)
		secret = s
		return err
	})
	if err != nil {
		return Updated{}, err
	}
	m.Changed(ctx)
	return Updated{Record: r, Secret: secret}, nil
}

// Revoke disables a key for good. Revoking a revoked key is not an error.
func (m *Manager) Revoke(ctx context.Context, id string) (Record, error) {
	r, err := m.Store.Modify(ctx, id, func(r *Record) error {
		if r.Status != StatusRevoked {
			at := m.now().Truncate(time.Millisecond)
			r.Status, r.RevokedAt = StatusRevoked, &at
		}
		return nil
	})
	if err == nil {
		m.Changed(ctx)
	}
	return r, err
}

// apply validates a patch and applies it to r, returning a new secret when
// one was made.
func (m *Manager) apply(r *Record, p Patch) (secret string, err error) {
	if p.Name != nil {
		if err := validateName(*p.Name); err != nil {
			return "", err
		}
		r.Name = *p.Name
	}
	if p.Plan != nil && r.Account != "" && *p.Plan != r.Plan {
		return "", ownedPlanError(r)
	}
	if p.Plan != nil {
		if _, ok := m.plans()[*p.Plan]; !ok {
			return "", inputErrorf("plan: %q is not configured (one of %s)", *p.Plan, m.planNames())
		}
		r.Plan = *p.Plan
	}
	if p.Networks != nil {
		if r.Networks, err = normalizeNetworks(*p.Networks); err != nil {
			return "", err
		}
	}
	if err := applyLimits(r, p); err != nil {
		return "", err
	}
	if p.WithinPlan {
		if err := withinPlan(r, m.plans()[r.Plan]); err != nil {
			return "", err
		}
	}
	s := r.Security
	if p.NewSecret && p.ClearSecret {
		return "", inputErrorf("new_secret and clear_secret cannot be used together")
	}
	if p.ClearSecret {
		s.SecretHash, s.SecretRequired, s.SecretBypassesAllowlists = nil, false, false
	}
	if p.NewSecret {
		if secret, err = Generate(); err != nil {
			return "", err
		}
		h := Hash(sha256.Sum256([]byte(secret)))
		s.SecretHash = &h
	}
	setBool(&s.SecretRequired, p.SecretRequired)
	setBool(&s.SecretBypassesAllowlists, p.SecretBypassesAllowlists)
	setList(&s.Methods, p.AllowedMethods)
	setList(&s.Contracts, p.AllowedContracts)
	setList(&s.Origins, p.AllowedOrigins)
	setList(&s.UserAgents, p.AllowedUserAgents)
	setList(&s.IPs, p.AllowedIPs)
	setBool(&s.JWTRequired, p.JWTRequired)
	if p.JWTKeys != nil {
		if err := applyJWTKeys(&s, p.JWTKeys); err != nil {
			return "", err
		}
	}
	if err := normalizeSecurity(&s); err != nil {
		return "", err
	}
	r.Security = s
	r.normalize()
	return secret, nil
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

func setList(dst *[]string, v *[]string) {
	if v != nil {
		*dst = append([]string(nil), (*v)...)
	}
}

func (m *Manager) planNames() string {
	plans := m.plans()
	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// EnsureDefault creates a key on plan named name when the store holds no
// key at all (revoked ones count: an operator who revoked everything meant
// it). created is false when keys already existed.
//
// announce, when set, receives the new key before it is stored: a process
// killed at any moment has then either shown the key or stored nothing, so
// the only copy of a key is never lost (a later start creates another).
func (m *Manager) EnsureDefault(ctx context.Context, plan, name string, announce func(Created)) (c Created, created bool, err error) {
	recs, err := m.Store.List(ctx)
	if err != nil {
		return Created{}, false, err
	}
	if len(recs) > 0 {
		return Created{}, false, nil
	}
	c, err = m.prepare(CreateParams{Name: name, Plan: plan})
	if err == nil && announce != nil {
		announce(c)
	}
	if err == nil {
		c, err = m.insert(ctx, c)
	}
	if err != nil {
		return Created{}, false, fmt.Errorf("create the first key: %w", err)
	}
	return c, true, nil
}

// IsNotFound reports whether err is an unknown id.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
