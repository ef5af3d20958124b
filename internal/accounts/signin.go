package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"time"
)

// Sign-in limits. Every attempt reserves a place under two limits before
// its password is hashed, in one transaction of the store (so concurrent
// attempts on every replica count, and the fleet shares them): one per
// client address (IPv4, or an IPv6 /64) and one per account. A wrong
// password keeps its places; the right one gives the address's back. Over
// a limit, an attempt is refused until its window ends, never longer than
// signinWindow.
//
// The account's limit is kept apart for each address the account signed
// in from successfully: strangers' failures fill the account's strangers'
// limit only, so that a stranger who fails on purpose cannot lock the
// owner out from an address the owner used before (and the operator can
// lift any limit: nodegate accounts unlock).
const (
	signinWindow     = 5 * time.Minute
	maxFailsPerIP    = 30
	maxFailsAccount  = 10
	subjectIPPrefix  = "ip:"
	subjectAccPrefix = "account:"
)

// AddressSubject is how limits name a client address: an IPv4 address,
// or the /64 of an IPv6 one (one host has a whole /64).
func AddressSubject(ip string) string {
	a := net.ParseIP(ip)
	if a == nil {
		return subjectIPPrefix + "unknown"
	}
	if a.To4() == nil {
		a = a.Mask(net.CIDRMask(64, 128))
	}
	return subjectIPPrefix + a.String()
}

// limitSubject is one limit an attempt counts against.
type limitSubject struct {
	subject, what string
	max           int64
}

// reserve takes one place under each limit at once, or none: over either
// limit it answers LimitedError and counts nothing.
func (s *Service) reserve(ctx context.Context, subs []limitSubject) error {
	now := s.now()
	windowOpen := ms(now) - signinWindow.Milliseconds()
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		for _, sub := range subs {
			var start, n int64
			err := tx.QueryRowContext(ctx, s.db.Q(`INSERT INTO nodegate_signin_failures (subject, window_start, failures) VALUES (?, ?, 1)
				ON CONFLICT (subject) DO UPDATE SET
				failures = CASE WHEN nodegate_signin_failures.window_start < ? THEN 1 ELSE nodegate_signin_failures.failures + 1 END,
				window_start = CASE WHEN nodegate_signin_failures.window_start < ? THEN excluded.window_start ELSE nodegate_signin_failures.window_start END
				RETURNING window_start, failures`),
				sub.subject, ms(now), windowOpen, windowOpen).Scan(&start, &n)
			if err != nil {
				return fmt.Errorf("reserve a sign-in attempt: %w", err)
			}
			if n > sub.max {
				end := time.UnixMilli(start).Add(signinWindow)
				return &LimitedError{What: sub.what, RetryAfterSeconds: int64(end.Sub(now)/time.Second) + 1}
			}
		}
		// Windows that ended are done with: the table holds only the last
		// signinWindow's subjects.
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_signin_failures WHERE window_start < ?"), windowOpen); err != nil {
			return fmt.Errorf("purge sign-in limits: %w", err)
		}
		return nil
	})
}

// giveBack returns a reserved place (an attempt that was not a failure).
func (s *Service) giveBack(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, subject string) error {
	if _, err := q.ExecContext(ctx, s.db.Q("UPDATE nodegate_signin_failures SET failures = failures - 1 WHERE subject = ? AND failures > 0"), subject); err != nil {
		return fmt.Errorf("return a sign-in attempt: %w", err)
	}
	return nil
}

// clearSubject forgets a limit's count.
func (s *Service) clearSubject(ctx context.Context, tx *sql.Tx, subject string) error {
	if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_signin_failures WHERE subject = ?"), subject); err != nil {
		return fmt.Errorf("clear sign-in limits: %w", err)
	}
	return nil
}

// clearAccountFailures forgets every limit of an account (a password
// reset, or the operator's unlock).
func (s *Service) clearAccountFailures(ctx context.Context, tx *sql.Tx, email string) error {
	if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_signin_failures WHERE subject = ? OR subject LIKE ?"),
		subjectAccPrefix+email, subjectAccPrefix+email+"|%"); err != nil {
		return fmt.Errorf("clear sign-in limits: %w", err)
	}
	return nil
}

// knownAddress reports whether the account signed in from addr before.
func (s *Service) knownAddress(ctx context.Context, accountID, addr string) (bool, error) {
	var n int
	err := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT COUNT(*) FROM nodegate_known_addresses WHERE account_id = ? AND subject = ?"), accountID, addr).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read known addresses: %w", err)
	}
	return n > 0, nil
}

// SignIn checks an email and password from a client address and starts a
// session, returning its token (for the cookie only). A missing account,
// a wrong password and a disabled account answer the same
// (ErrBadCredentials), after the same work.
func (s *Service) SignIn(ctx context.Context, email, password, ip string) (token string, a Account, err error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return "", Account{}, err
	}
	addr := AddressSubject(ip)
	a, err = s.ByEmail(ctx, e)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", Account{}, err
	}
	account := limitSubject{subjectAccPrefix + e, "this account", maxFailsAccount}
	if found {
		known, err := s.knownAddress(ctx, a.ID, addr)
		if err != nil {
			return "", Account{}, err
		}
		if known {
			account.subject += "|" + addr
		}
	}
	if err := s.reserve(ctx, []limitSubject{{addr, "this address", maxFailsPerIP}, account}); err != nil {
		var le *LimitedError
		if errors.As(err, &le) {
			audit(ctx, EventSigninLimited, "email", e, "address", addr, "limit", le.What)
		}
		return "", Account{}, err
	}
	stored := a.passwordHash
	if !found {
		stored = dummyHash // the same work as a wrong password: timing says nothing
	}
	ok, verr := verifyPassword(ctx, stored, password)
	if verr != nil {
		// Never verified (the hash queue is full, or the client left):
		// the attempt gives its places back.
		if gerr := s.giveBack(ctx, s.db.DB, addr); gerr != nil {
			return "", Account{}, gerr
		}
		if gerr := s.giveBack(ctx, s.db.DB, account.subject); gerr != nil {
			return "", Account{}, gerr
		}
		return "", Account{}, verr
	}
	if !ok || !found || a.Status != StatusActive {
		// A disabled account's right password is not confirmed: it
		// answers as a wrong one.
		audit(ctx, EventSigninFailed, "email", e, "address", addr, "account", a.ID)
		return "", Account{}, ErrBadCredentials
	}
	now := s.now()
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if token, err = s.newSession(ctx, tx, a.ID, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_accounts SET last_login_at = ? WHERE id = ?"), ms(now), a.ID); err != nil {
			return fmt.Errorf("record sign-in: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q(`INSERT INTO nodegate_known_addresses (account_id, subject, last_at) VALUES (?, ?, ?)
			ON CONFLICT (account_id, subject) DO UPDATE SET last_at = excluded.last_at`), a.ID, addr, ms(now)); err != nil {
			return fmt.Errorf("record the sign-in's address: %w", err)
		}
		if err := s.giveBack(ctx, tx, addr); err != nil {
			return err
		}
		return s.clearSubject(ctx, tx, account.subject)
	})
	if err != nil {
		return "", Account{}, err
	}
	audit(ctx, EventSignin, "account", a.ID, "address", addr)
	a.LastLoginAt = &now
	return token, a, nil
}
