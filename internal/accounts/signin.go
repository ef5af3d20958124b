package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"time"
)

// Sign-in limits: failures counted per client address and per account in
// a fixed window, in the store (so the fleet shares them). Over a limit, a
// sign-in is refused until its window ends: never longer than
// signinWindow, so an attacker who fails on purpose can hold a victim's
// account for minutes at most, and only the password reset link is
// needed to get in at once (a reset clears the account's count).
const (
	signinWindow     = 5 * time.Minute
	maxFailsPerIP    = 30
	maxFailsAccount  = 10
	subjectIPPrefix  = "ip:"
	subjectAccPrefix = "account:"
)

// ipSubject groups IPv6 clients by /64 (one host has a whole /64).
func ipSubject(ip string) string {
	a := net.ParseIP(ip)
	if a == nil {
		return subjectIPPrefix + "unknown"
	}
	if a.To4() == nil {
		a = a.Mask(net.CIDRMask(64, 128))
	}
	return subjectIPPrefix + a.String()
}

// checkLimits refuses a sign-in over either limit.
func (s *Service) checkLimits(ctx context.Context, ip, email string) error {
	now := s.now()
	for _, sub := range []struct {
		subject, what string
		max           int64
	}{{ipSubject(ip), "this address", maxFailsPerIP}, {subjectAccPrefix + email, "this account", maxFailsAccount}} {
		var start, fails int64
		err := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT window_start, failures FROM nodegate_signin_failures WHERE subject = ?"), sub.subject).Scan(&start, &fails)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return fmt.Errorf("read sign-in limits: %w", err)
		}
		end := time.UnixMilli(start).Add(signinWindow)
		if fails >= sub.max && now.Before(end) {
			return &LimitedError{What: sub.what, RetryAfterSeconds: int64(end.Sub(now)/time.Second) + 1}
		}
	}
	return nil
}

// noteFailure counts a failed sign-in for the address and the account.
func (s *Service) noteFailure(ctx context.Context, ip, email string) error {
	now := ms(s.now())
	windowOpen := now - signinWindow.Milliseconds()
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		for _, sub := range []string{ipSubject(ip), subjectAccPrefix + email} {
			if _, err := tx.ExecContext(ctx, s.db.Q(`INSERT INTO nodegate_signin_failures (subject, window_start, failures) VALUES (?, ?, 1)
				ON CONFLICT (subject) DO UPDATE SET
				failures = CASE WHEN nodegate_signin_failures.window_start < ? THEN 1 ELSE nodegate_signin_failures.failures + 1 END,
				window_start = CASE WHEN nodegate_signin_failures.window_start < ? THEN excluded.window_start ELSE nodegate_signin_failures.window_start END`),
				sub, now, windowOpen, windowOpen); err != nil {
				return fmt.Errorf("count a failed sign-in: %w", err)
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

// clearAccountFailures forgets an account's failures (a sign-in or a
// password reset succeeded).
func (s *Service) clearAccountFailures(ctx context.Context, tx *sql.Tx, email string) error {
	if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_signin_failures WHERE subject = ?"), subjectAccPrefix+email); err != nil {
		return fmt.Errorf("clear sign-in limits: %w", err)
	}
	return nil
}

// SignIn checks an email and password from a client address and starts a
// session, returning its token (for the cookie only).
func (s *Service) SignIn(ctx context.Context, email, password, ip string) (token string, a Account, err error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return "", Account{}, err
	}
	if err := s.checkLimits(ctx, ip, e); err != nil {
		return "", Account{}, err
	}
	a, err = s.ByEmail(ctx, e)
	stored := a.passwordHash
	if errors.Is(err, ErrNotFound) {
		stored = dummyHash // the same work as a wrong password: timing says nothing
	} else if err != nil {
		return "", Account{}, err
	}
	ok, verr := verifyPassword(ctx, stored, password)
	if verr != nil {
		return "", Account{}, verr
	}
	if !ok || err != nil {
		if ferr := s.noteFailure(ctx, ip, e); ferr != nil {
			return "", Account{}, ferr
		}
		return "", Account{}, ErrBadCredentials
	}
	if a.Status != StatusActive {
		return "", Account{}, ErrDisabled
	}
	now := s.now()
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if token, err = s.newSession(ctx, tx, a.ID, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_accounts SET last_login_at = ? WHERE id = ?"), ms(now), a.ID); err != nil {
			return fmt.Errorf("record sign-in: %w", err)
		}
		return s.clearAccountFailures(ctx, tx, e)
	})
	if err != nil {
		return "", Account{}, err
	}
	a.LastLoginAt = &now
	return token, a, nil
}
