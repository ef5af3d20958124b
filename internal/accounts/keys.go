package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nodegate/nodegate/internal/keys"
)

// Keys lists the keys an account owns, revoked ones included.
func (s *Service) Keys(ctx context.Context, account string) ([]keys.Record, error) {
	recs, err := s.keys.Store.ListOwned(ctx, account)
	if recs == nil && err == nil {
		recs = []keys.Record{} // JSON [], not null
	}
	return recs, err
}

// Key returns a key the account owns: ErrNotFound for any other id.
func (s *Service) Key(ctx context.Context, account, id string) (keys.Record, error) {
	r, err := s.keys.Store.Get(ctx, id)
	if keys.IsNotFound(err) || (err == nil && r.Account != account) {
		return keys.Record{}, ErrNotFound
	}
	return r, err
}

// CreateKey makes a key for the account on its plan, within its plan's
// key cap. The plain key and secret are only in the result.
func (s *Service) CreateKey(ctx context.Context, account string, p keys.CreateParams) (keys.Created, error) {
	a, err := s.Get(ctx, account)
	if err != nil {
		return keys.Created{}, err
	}
	if a.Status != StatusActive {
		return keys.Created{}, ErrDisabled
	}
	c, err := s.keys.CreateOwned(ctx, a.ID, a.Plan, s.MaxKeys(a.Plan), p)
	if err != nil {
		return keys.Created{}, err
	}
	audit(ctx, EventKeyCreated, "key_id", c.ID, "account", a.ID, "via", "dashboard")
	s.recordChange(ctx, a.ID, ChangeKeyCreated, fmt.Sprintf("key %s (%s)", c.ID, c.Name))
	return c, nil
}

// UpdateKey changes a key the account owns. Its plan is the account's:
// a patch may not set it.
func (s *Service) UpdateKey(ctx context.Context, account, id string, p keys.Patch) (keys.Updated, error) {
	if p.Plan != nil {
		return keys.Updated{}, inputf("plan: a key has its account's plan")
	}
	p.WithinPlan = true // a customer's own limits may only lower the plan's
	if _, err := s.Key(ctx, account, id); err != nil {
		return keys.Updated{}, err
	}
	u, err := s.keys.Update(ctx, id, p)
	if err == nil {
		audit(ctx, EventKeyChanged, "key_id", id, "account", account, "via", "dashboard")
		s.recordChange(ctx, account, ChangeKeyChanged, fmt.Sprintf("key %s (%s): %s", id, u.Name, patchFields(p)))
	}
	return u, err
}

// RevokeKey revokes a key the account owns, for good.
func (s *Service) RevokeKey(ctx context.Context, account, id string) (keys.Record, error) {
	if _, err := s.Key(ctx, account, id); err != nil {
		return keys.Record{}, err
	}
	r, err := s.keys.Revoke(ctx, id)
	if err == nil {
		audit(ctx, EventKeyRevoked, "key_id", id, "account", account, "via", "dashboard")
		s.recordChange(ctx, account, ChangeKeyRevoked, fmt.Sprintf("key %s (%s)", id, r.Name))
	}
	return r, err
}

// IsNotFound reports an unknown account, request or key.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) || keys.IsNotFound(err) }

// Input turns the keys package's refused input into this package's, so
// that callers check one kind.
func Input(err error) error {
	var ie *keys.InputError
	if errors.As(err, &ie) {
		return &InputError{Msg: ie.Msg}
	}
	return err
}

// patchFields names what a patch changes, for the audit page (never a
// secret's value).
func patchFields(p keys.Patch) string {
	var f []string
	add := func(set bool, name string) {
		if set {
			f = append(f, name)
		}
	}
	add(p.Name != nil, "name")
	add(p.Networks != nil, "networks")
	add(p.NewSecret, "new secret")
	add(p.ClearSecret, "secret removed")
	add(p.SecretRequired != nil || p.SecretBypassesAllowlists != nil, "secret settings")
	add(p.AllowedMethods != nil || p.AllowedContracts != nil || p.AllowedOrigins != nil || p.AllowedUserAgents != nil, "allowlists")
	if len(f) == 0 {
		return "settings"
	}
	return strings.Join(f, ", ")
}
