package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// Status is an account's state.
type Status string

// The statuses of an account. A disabled account cannot sign in and its
// keys are suspended (refused on every replica within key_refresh).
const (
	StatusActive   Status = "active"
	StatusDisabled Status = "disabled"
)

// Account is a customer as stores, pages and the operator's tools show it.
// It never holds the password, only its hash (unexported, never in JSON).
type Account struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	Plan        string     `json:"plan"`
	Status      Status     `json:"status"`
	CreatedAt   time.Time  `json:"created_at"`
	LastLoginAt *time.Time `json:"last_login_at"`

	passwordHash string
}

const accountColumns = "id, email, password_hash, plan, status, created_at, last_login_at"

func scanAccount(sc interface{ Scan(...any) error }) (Account, error) {
	var (
		a              Account
		status         string
		created, login int64
	)
	if err := sc.Scan(&a.ID, &a.Email, &a.passwordHash, &a.Plan, &status, &created, &login); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return a, ErrNotFound
		}
		return a, fmt.Errorf("read account: %w", err)
	}
	a.Status = Status(status)
	a.CreatedAt = time.UnixMilli(created).UTC()
	a.LastLoginAt = fromMS(login)
	return a, nil
}

// Get returns an account by id.
func (s *Service) Get(ctx context.Context, id string) (Account, error) {
	return scanAccount(s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT "+accountColumns+" FROM nodegate_accounts WHERE id = ?"), id))
}

// ByEmail returns an account by its email (normalised first).
func (s *Service) ByEmail(ctx context.Context, email string) (Account, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return Account{}, err
	}
	return scanAccount(s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT "+accountColumns+" FROM nodegate_accounts WHERE email = ?"), e))
}

// Find returns an account by id or email: what the operator types.
func (s *Service) Find(ctx context.Context, idOrEmail string) (Account, error) {
	if strings.Contains(idOrEmail, "@") {
		return s.ByEmail(ctx, idOrEmail)
	}
	return s.Get(ctx, idOrEmail)
}

// List returns every account, oldest first.
func (s *Service) List(ctx context.Context) ([]Account, error) {
	rows, err := s.db.DB.QueryContext(ctx, "SELECT "+accountColumns+" FROM nodegate_accounts ORDER BY created_at, id")
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	out := []Account{}
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

// create stores a new account with a hashed password.
func (s *Service) create(ctx context.Context, email, password, plan string) (Account, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return Account{}, err
	}
	if err := checkPassword("password", password); err != nil {
		return Account{}, err
	}
	if _, ok := s.Plans()[plan]; !ok {
		return Account{}, inputf("sign-up: this service's plan for new accounts (%q) is not configured: ask its operator", plan)
	}
	hash, err := hashPassword(ctx, password)
	if err != nil {
		return Account{}, err
	}
	id, err := newID("acct_")
	if err != nil {
		return Account{}, err
	}
	a := Account{ID: id, Email: e, Plan: plan, Status: StatusActive, CreatedAt: s.now().Truncate(time.Millisecond), passwordHash: hash}
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, s.db.Q("SELECT COUNT(*) FROM nodegate_accounts WHERE email = ?"), e).Scan(&n); err != nil {
			return fmt.Errorf("check email: %w", err)
		}
		if n > 0 {
			return inputf("email: an account with this email exists: sign in, or reset its password")
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_accounts ("+accountColumns+") VALUES (?, ?, ?, ?, ?, ?, 0)"),
			a.ID, a.Email, a.passwordHash, a.Plan, string(a.Status), ms(a.CreatedAt)); err != nil {
			if strings.Contains(strings.ToLower(err.Error()), "unique") {
				return inputf("email: an account with this email exists: sign in, or reset its password")
			}
			return fmt.Errorf("insert account: %w", err)
		}
		return nil
	})
	return a, err
}

// SetPlan moves an account and every key it owns to plan, in one
// transaction: this replica applies it at once, the others within
// key_refresh.
func (s *Service) SetPlan(ctx context.Context, id, plan string) (Account, error) {
	if _, ok := s.Plans()[plan]; !ok {
		return Account{}, inputf("plan: %q is not configured (one of %s)", plan, strings.Join(s.PlanNames(), ", "))
	}
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_accounts SET plan = ? WHERE id = ?"), plan, id)
		if err != nil {
			return fmt.Errorf("set plan: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_keys SET plan = ? WHERE account_id = ?"), plan, id); err != nil {
			return fmt.Errorf("set the keys' plan: %w", err)
		}
		return s.db.KeysChanged(ctx, tx)
	})
	if err != nil {
		return Account{}, err
	}
	s.keys.Changed(ctx) // this replica's cache at once; the others within key_refresh
	return s.Get(ctx, id)
}

// SetStatus disables or enables an account. Disabling ends its sessions
// and suspends its active keys; enabling makes them active again (revoked
// keys stay revoked).
func (s *Service) SetStatus(ctx context.Context, id string, st Status) (Account, error) {
	from, to := keys.StatusSuspended, keys.StatusActive
	if st == StatusDisabled {
		from, to = keys.StatusActive, keys.StatusSuspended
	} else if st != StatusActive {
		return Account{}, inputf("status: want active or disabled, got %q", st)
	}
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_accounts SET status = ? WHERE id = ?"), string(st), id)
		if err != nil {
			return fmt.Errorf("set status: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_keys SET status = ? WHERE account_id = ? AND status = ?"), string(to), id, string(from)); err != nil {
			return fmt.Errorf("set the keys' status: %w", err)
		}
		if st == StatusDisabled {
			if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE account_id = ?"), id); err != nil {
				return fmt.Errorf("end sessions: %w", err)
			}
		}
		return s.db.KeysChanged(ctx, tx)
	})
	if err != nil {
		return Account{}, err
	}
	s.keys.Changed(ctx) // this replica's cache at once; the others within key_refresh
	audit(ctx, EventStatusChanged, "account", id, "status", string(st))
	return s.Get(ctx, id)
}

// setPassword stores a new password hash and ends every session.
func (s *Service) setPassword(ctx context.Context, id, password string) error {
	hash, err := hashPassword(ctx, password)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_accounts SET password_hash = ? WHERE id = ?"), hash, id); err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE account_id = ?"), id); err != nil {
			return fmt.Errorf("end sessions: %w", err)
		}
		return nil
	})
}

// ChangePassword replaces the password after checking the current one;
// every session of the account ends (the caller signs in again).
func (s *Service) ChangePassword(ctx context.Context, id, current, next string) error {
	a, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	ok, err := verifyPassword(ctx, a.passwordHash, current)
	if err != nil {
		return err
	}
	if !ok {
		return inputf("current password: wrong password")
	}
	if err := checkPassword("new password", next); err != nil {
		return err
	}
	if err := s.setPassword(ctx, id, next); err != nil {
		return err
	}
	audit(ctx, EventPasswordSet, "account", id)
	return nil
}
