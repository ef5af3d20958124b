package accounts

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// Mail that a page asks for (a password reset, a sign-up link) is looked
// up and sent after the page answered, off the request: the answer is the
// same, in the same time, whether the email has an account and whether
// the mail server is up. At most maxMailJobs run at once; more are
// dropped with a warning (the page already said "on its way").
const (
	maxMailJobs = 64
	mailJobTime = time.Minute
)

// Mails to one recipient are bounded per hour (across the fleet), so the
// pages cannot be used to flood an inbox.
const (
	mailWindow          = time.Hour
	MaxMailsPerHour     = 3
	subjectMailPrefix   = "mail:"
	DefaultResetLinkTTL = time.Hour
)

// later runs job in the background (see maxMailJobs).
func (s *Service) later(what string, job func(ctx context.Context) error) {
	select {
	case s.jobs <- struct{}{}:
	default:
		slog.Warn("accounts: too many mails pending, one dropped", "what", what)
		return
	}
	go func() {
		defer func() { <-s.jobs }()
		ctx, cancel := context.WithTimeout(context.Background(), mailJobTime)
		defer cancel()
		if err := job(ctx); err != nil {
			slog.Warn("accounts: "+what, "err", err)
		}
	}()
}

// takeMail counts one mail to email in the hour's window; false when the
// recipient had MaxMailsPerHour already (nothing is counted then).
func (s *Service) takeMail(ctx context.Context, email string) (bool, error) {
	now := ms(s.now())
	windowOpen := now - mailWindow.Milliseconds()
	ok := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		var n int64
		err := tx.QueryRowContext(ctx, s.db.Q(`INSERT INTO nodegate_mail_counts (subject, window_start, sent) VALUES (?, ?, 1)
			ON CONFLICT (subject) DO UPDATE SET
			sent = CASE WHEN nodegate_mail_counts.window_start < ? THEN 1 ELSE nodegate_mail_counts.sent + 1 END,
			window_start = CASE WHEN nodegate_mail_counts.window_start < ? THEN excluded.window_start ELSE nodegate_mail_counts.window_start END
			RETURNING sent`), subjectMailPrefix+email, now, windowOpen, windowOpen).Scan(&n)
		if err != nil {
			return fmt.Errorf("count a mail: %w", err)
		}
		if n > MaxMailsPerHour {
			return errMailLimited
		}
		ok = true
		_, err = tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_mail_counts WHERE window_start < ?"), windowOpen)
		if err != nil {
			return fmt.Errorf("purge mail counts: %w", err)
		}
		return nil
	})
	if err == errMailLimited {
		return false, nil
	}
	return ok, err
}

var errMailLimited = fmt.Errorf("mail limit")
