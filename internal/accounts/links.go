package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"
)

// The kinds of one-time links.
const (
	linkInvite = "invite"
	linkReset  = "reset"
	// linkMember invites a login into an account's team (members.go).
	linkMember = "member"
)

// Paths of the pages that one-time links open (internal/customer serves them).
const (
	SignupPath = "/dashboard/signup"
	ResetPath  = "/dashboard/reset"
)

// Link is a one-time link just made: the only place its token exists.
type Link struct {
	Email string    `json:"email"`
	URL   string    `json:"url"`
	Until time.Time `json:"expires_at"`
	// Mailed is true when a mail server took the message.
	Mailed bool `json:"mailed"`
}

// newLink stores a one-time token of kind for email, working for ttl.
func (s *Service) newLink(ctx context.Context, kind, email, path string, ttl time.Duration) (Link, error) {
	return s.newTeamLink(ctx, kind, email, path, ttl, teamGrant{})
}

// teamGrant is what a member invitation grants: the team and the role.
type teamGrant struct {
	Account string
	Role    Role
}

// newTeamLink is newLink with the team a member invitation grants.
func (s *Service) newTeamLink(ctx context.Context, kind, email, path string, ttl time.Duration, g teamGrant) (Link, error) {
	token, hash, err := newToken()
	if err != nil {
		return Link{}, err
	}
	now := s.now()
	until := now.Add(ttl)
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		// A new link replaces the email's unused links of its kind.
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_tokens WHERE kind = ? AND email = ? AND used_at = 0"), kind, email); err != nil {
			return fmt.Errorf("replace link: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_tokens WHERE expires_at < ?"), ms(now)); err != nil {
			return fmt.Errorf("purge links: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_tokens (hash, kind, email, created_at, expires_at, account_id, role) VALUES (?, ?, ?, ?, ?, ?, ?)"),
			hash, kind, email, ms(now), ms(until), g.Account, string(g.Role)); err != nil {
			return fmt.Errorf("store link: %w", err)
		}
		return nil
	})
	if err != nil {
		return Link{}, err
	}
	return Link{Email: email, URL: s.opts.BaseURL + path + "?" + url.Values{"token": {token}}.Encode(), Until: until}, nil
}

// linkEmail returns the email of an unused, unexpired link of kind.
func (s *Service) linkEmail(ctx context.Context, kind, token string) (string, error) {
	if token == "" || len(token) > 64 {
		return "", inputf("link: missing or malformed: ask for a new one")
	}
	var email string
	err := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT email FROM nodegate_tokens WHERE hash = ? AND kind = ? AND used_at = 0 AND expires_at > ?"),
		tokenHash(token), kind, ms(s.now())).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", inputf("link: unknown, used or expired: ask for a new one")
	} else if err != nil {
		return "", fmt.Errorf("read link: %w", err)
	}
	return email, nil
}

// useLink marks a link used inside tx; it fails if another request used
// it first.
func (s *Service) useLink(ctx context.Context, tx *sql.Tx, kind, token string) error {
	res, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_tokens SET used_at = ? WHERE hash = ? AND kind = ? AND used_at = 0 AND expires_at > ?"),
		ms(s.now()), tokenHash(token), kind, ms(s.now()))
	if err != nil {
		return fmt.Errorf("use link: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return inputf("link: unknown, used or expired: ask for a new one")
	}
	return nil
}

// Invite makes a one-time sign-up link for email (whatever the signup
// policy) and mails it when a mail server is configured.
func (s *Service) Invite(ctx context.Context, email string) (Link, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return Link{}, err
	}
	if _, err := s.ByEmail(ctx, e); err == nil {
		return Link{}, inputf("email: %s already has an account", e)
	} else if !errors.Is(err, ErrNotFound) {
		return Link{}, err
	}
	l, err := s.newLink(ctx, linkInvite, e, SignupPath, s.opts.LinkTTL)
	if err != nil {
		return Link{}, err
	}
	if s.opts.Mailer != nil {
		body := fmt.Sprintf("You are invited to make an account.\r\n\r\nOpen this link to choose a password (it works once, until %s):\r\n\r\n%s\r\n",
			l.Until.Format(time.RFC1123), l.URL)
		if err := s.opts.Mailer.Send(ctx, e, "Your invitation", body); err != nil {
			return l, fmt.Errorf("invitation made but not mailed (give the link yourself): %w", err)
		}
		l.Mailed = true
	}
	return l, nil
}

// InvitedEmail is the email an invitation link is for (the operator's,
// or an owner's into a team).
func (s *Service) InvitedEmail(ctx context.Context, token string) (string, error) {
	inv, err := s.invitation(ctx, token)
	return inv.email, err
}

// invitationOf is an unused invitation: the operator's (kind invite) or
// into a team (kind member, with its grant).
type invitationOf struct {
	kind, email string
	grant       teamGrant
}

func (s *Service) invitation(ctx context.Context, token string) (invitationOf, error) {
	if token == "" || len(token) > 64 {
		return invitationOf{}, inputf("link: missing or malformed: ask for a new one")
	}
	var inv invitationOf
	var role string
	err := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT kind, email, account_id, role FROM nodegate_tokens WHERE hash = ? AND kind IN (?, ?) AND used_at = 0 AND expires_at > ?"),
		tokenHash(token), linkInvite, linkMember, ms(s.now())).Scan(&inv.kind, &inv.email, &inv.grant.Account, &role)
	if errors.Is(err, sql.ErrNoRows) {
		return invitationOf{}, inputf("link: unknown, used or expired: ask for a new one")
	} else if err != nil {
		return invitationOf{}, fmt.Errorf("read link: %w", err)
	}
	inv.grant.Role = Role(role)
	return inv, nil
}

// SignUp makes an account under the signup policy: with an invitation
// token whatever the policy (the account gets the invitation's email),
// without one only when signup is open. It signs the account in.
func (s *Service) SignUp(ctx context.Context, email, password, invite string) (token string, a Account, err error) {
	var inv invitationOf
	if invite != "" {
		if inv, err = s.invitation(ctx, invite); err != nil {
			return "", Account{}, err
		}
		email = inv.email
	} else if s.opts.Signup != SignupOpen {
		return "", Account{}, inputf("sign-up: this service makes accounts by invitation only: ask its operator for a link")
	} else if s.SignupByMail() {
		return "", Account{}, inputf("sign-up: open the link mailed to you to choose a password")
	}
	if err := checkPassword("password", password); err != nil {
		return "", Account{}, err
	}
	if a, err = s.create(ctx, email, password, s.opts.SignupPlan); err != nil {
		return "", Account{}, err
	}
	now := s.now()
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if invite != "" {
			if err := s.useLink(ctx, tx, inv.kind, invite); err != nil {
				return err
			}
		}
		if inv.kind == linkMember {
			if err := s.join(ctx, tx, a.ID, inv.grant); err != nil {
				return err
			}
		}
		token, err = s.newSession(ctx, tx, a.ID, now)
		return err
	})
	if err != nil {
		return "", Account{}, err
	}
	slog.Info("account created", "account", a.ID, "plan", a.Plan, "invited", invite != "")
	audit(ctx, EventAccountCreated, "account", a.ID, "plan", a.Plan, "invited", invite != "")
	if inv.kind == linkMember {
		s.recordChange(WithActor(ctx, a.Email), inv.grant.Account, ChangeMemberJoined, fmt.Sprintf("%s joined as %s", a.Email, inv.grant.Role))
	}
	return token, a, nil
}

// RequestReset asks for a password reset link for email. It answers at
// once and the same whatever the email (only a malformed email, or no mail
// server, is refused); after the answer, when the email has an account
// and its hour's mail bound is not reached, the link is mailed.
func (s *Service) RequestReset(ctx context.Context, email, ip string) error {
	e, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	if s.opts.Mailer == nil {
		return inputf("password reset: this service has no mail server: ask its operator")
	}
	audit(ctx, EventResetRequested, "email", e, "address", AddressSubject(ip))
	s.later("mail a reset link", func(ctx context.Context) error {
		if _, err := s.ByEmail(ctx, e); errors.Is(err, ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if ok, err := s.takeMail(ctx, e); err != nil || !ok {
			if err == nil {
				audit(ctx, EventResetLimited, "email", e)
			}
			return err
		}
		l, err := s.newLink(ctx, linkReset, e, ResetPath, s.opts.ResetTTL)
		if err != nil {
			return err
		}
		body := fmt.Sprintf("Someone asked to reset the password of this account.\r\n\r\nOpen this link to choose a new one (it works once, until %s):\r\n\r\n%s\r\n\r\nIf it was not you, ignore this message.\r\n",
			l.Until.Format(time.RFC1123), l.URL)
		if err := s.opts.Mailer.Send(ctx, e, "Reset your password", body); err != nil {
			return fmt.Errorf("mail the reset link: %w", err)
		}
		audit(ctx, EventResetMailed, "email", e)
		return nil
	})
	return nil
}

// SignupByMail reports whether an open sign-up goes through a mailed link
// (open policy and a mail server): the email is proven before the account
// exists, so before it can make keys.
func (s *Service) SignupByMail() bool {
	return s.opts.Signup == SignupOpen && s.opts.Mailer != nil
}

// RequestSignup starts an open sign-up by mail. It answers at once and
// the same whatever the email; after the answer it mails a one-time
// sign-up link (a new email) or a note that the account exists (a known
// one), within the recipient's hour's mail bound.
func (s *Service) RequestSignup(ctx context.Context, email, ip string) error {
	e, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	if !s.SignupByMail() {
		return inputf("sign-up: this service makes accounts by invitation only: ask its operator for a link")
	}
	s.later("mail a sign-up link", func(ctx context.Context) error {
		_, err := s.ByEmail(ctx, e)
		exists := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if ok, err := s.takeMail(ctx, e); err != nil || !ok {
			return err
		}
		subject, body := "Your account", "Someone asked to make an account with this email, which has one already.\r\n\r\nSign in, or reset its password from the sign-in page. If it was not you, ignore this message.\r\n"
		if !exists {
			l, err := s.newLink(ctx, linkInvite, e, SignupPath, s.opts.ResetTTL)
			if err != nil {
				return err
			}
			subject = "Finish making your account"
			body = fmt.Sprintf("Open this link to choose a password and make your account (it works once, until %s):\r\n\r\n%s\r\n\r\nIf it was not you, ignore this message.\r\n",
				l.Until.Format(time.RFC1123), l.URL)
		}
		if err := s.opts.Mailer.Send(ctx, e, subject, body); err != nil {
			return fmt.Errorf("mail the sign-up link: %w", err)
		}
		audit(ctx, EventSignupMailed, "email", e, "address", AddressSubject(ip))
		return nil
	})
	return nil
}

// ResetEmail is the email a reset link is for.
func (s *Service) ResetEmail(ctx context.Context, token string) (string, error) {
	return s.linkEmail(ctx, linkReset, token)
}

// ResetPassword sets a new password with a reset link, ends every
// session and clears the account's sign-in failures.
func (s *Service) ResetPassword(ctx context.Context, token, password string) error {
	email, err := s.linkEmail(ctx, linkReset, token)
	if err != nil {
		return err
	}
	if err := checkPassword("new password", password); err != nil {
		return err
	}
	a, err := s.ByEmail(ctx, email)
	if err != nil {
		return err
	}
	hash, err := hashPassword(ctx, password)
	if err != nil {
		return err
	}
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.useLink(ctx, tx, linkReset, token); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("UPDATE nodegate_accounts SET password_hash = ? WHERE id = ?"), hash, a.ID); err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE account_id = ?"), a.ID); err != nil {
			return fmt.Errorf("end sessions: %w", err)
		}
		return s.clearAccountFailures(ctx, tx, email)
	})
	if err == nil {
		audit(ctx, EventPasswordReset, "account", a.ID)
	}
	return err
}
