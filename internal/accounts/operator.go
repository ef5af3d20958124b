package accounts

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Unlock lifts every sign-in limit of an account at once (the operator's
// answer to a lock-out: nodegate accounts unlock, POST
// /admin/accounts/{id}/unlock).
func (s *Service) Unlock(ctx context.Context, id, via string) (Account, error) {
	a, err := s.Get(ctx, id)
	if err != nil {
		return Account{}, err
	}
	if err := s.db.InTx(ctx, func(tx *sql.Tx) error { return s.clearAccountFailures(ctx, tx, a.Email) }); err != nil {
		return Account{}, err
	}
	audit(ctx, EventUnlocked, "account", a.ID, "via", via)
	return a, nil
}

// ResetLink makes a one-time password reset link for an account, for the
// operator to hand over (and mails it when a mail server is configured):
// nodegate accounts reset-password, POST /admin/accounts/{id}/reset-password.
// It works for reset_ttl; using it clears the account's sign-in limits.
// The error is set with a link when the link was made but not mailed.
func (s *Service) ResetLink(ctx context.Context, id, via string) (Link, error) {
	a, err := s.Get(ctx, id)
	if err != nil {
		return Link{}, err
	}
	l, err := s.newLink(ctx, linkReset, a.Email, ResetPath, s.opts.ResetTTL)
	if err != nil {
		return Link{}, err
	}
	audit(ctx, EventResetRequested, "account", a.ID, "via", via)
	if s.opts.Mailer != nil {
		body := fmt.Sprintf("The operator of this service made a link to reset the password of this account.\r\n\r\nOpen it to choose a new one (it works once, until %s):\r\n\r\n%s\r\n",
			l.Until.Format(time.RFC1123), l.URL)
		if err := s.opts.Mailer.Send(ctx, a.Email, "Reset your password", body); err != nil {
			return l, fmt.Errorf("reset link made but not mailed (give the link yourself): %w", err)
		}
		l.Mailed = true
		audit(ctx, EventResetMailed, "account", a.ID)
	}
	return l, nil
}
