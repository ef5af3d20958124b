package keys

import (
	"context"
	"errors"
)

// CreateOwned makes a key that account owns, on the account's plan, unless
// the account already has max keys that are not revoked (an InputError
// then). The plain key and secret exist only in the result.
func (m *Manager) CreateOwned(ctx context.Context, account, plan string, max int, p CreateParams) (Created, error) {
	p.Plan = plan
	c, err := m.prepare(p)
	if err != nil {
		return Created{}, err
	}
	c.Account = account
	if err := m.Store.InsertOwned(ctx, c.Record, max); err != nil {
		if errors.Is(err, ErrTooManyKeys) {
			return Created{}, inputErrorf("keys: %v", err)
		}
		return Created{}, err
	}
	m.Changed(ctx)
	c.normalize()
	return c, nil
}

// ownedPlanError refuses a plan change on a key an account owns: its plan
// is the account's.
func ownedPlanError(r *Record) error {
	return inputErrorf("plan: key %s belongs to account %s, whose plan it has: change the account's plan (nodegate accounts set-plan)", r.ID, r.Account)
}

// CurrentPlans are the plans keys are checked against now.
func (m *Manager) CurrentPlans() map[string]Plan { return m.plans() }
