package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Session is a signed-in browser. The token lives only in its cookie;
// the store keeps its SHA-256, so that any replica accepts it and a copy
// of the database signs nobody in.
type Session struct {
	// Account is the account the session acts for: the login's own, or
	// the team's it is a member of.
	Account Account
	// Login is who signed in; Role what it may do for Account (the owner
	// when Login is Account).
	Login Account
	Role  Role
	// Hash identifies the session (the token's SHA-256, hex).
	Hash      string
	CreatedAt time.Time
	LastSeen  time.Time
}

// touchEvery bounds the writes of last-seen times: a session seen again
// within it is not written.
const touchEvery = time.Minute

// newSession stores a session for account id and returns its token.
func (s *Service) newSession(ctx context.Context, tx *sql.Tx, id string, now time.Time) (string, error) {
	token, hash, err := newToken()
	if err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_sessions (hash, account_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)"),
		hash, id, ms(now), ms(now)); err != nil {
		return "", fmt.Errorf("store session: %w", err)
	}
	return token, nil
}

// Authenticate returns the session of a cookie's token: ErrNoSession when
// there is none, when it passed its idle or absolute lifetime, or when
// its account is disabled.
func (s *Service) Authenticate(ctx context.Context, token string) (Session, error) {
	if token == "" || len(token) > 64 {
		return Session{}, ErrNoSession
	}
	hash := tokenHash(token)
	var (
		sess          Session
		created, seen int64
	)
	row := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT s.created_at, s.last_seen_at, a.id, a.email, a.password_hash, a.plan, a.status, a.created_at, a.last_login_at"+
		" FROM nodegate_sessions s JOIN nodegate_accounts a ON a.id = s.account_id WHERE s.hash = ?"), hash)
	var a Account
	var status string
	var acreated, login int64
	err := row.Scan(&created, &seen, &a.ID, &a.Email, &a.passwordHash, &a.Plan, &status, &acreated, &login)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNoSession
	} else if err != nil {
		return Session{}, fmt.Errorf("read session: %w", err)
	}
	a.Status, a.CreatedAt, a.LastLoginAt = Status(status), time.UnixMilli(acreated).UTC(), fromMS(login)
	sess = Session{Account: a, Hash: hash, CreatedAt: time.UnixMilli(created).UTC(), LastSeen: time.UnixMilli(seen).UTC()}
	now := s.now()
	if now.Sub(sess.LastSeen) > s.opts.SessionIdle || now.Sub(sess.CreatedAt) > s.opts.SessionMax || a.Status != StatusActive {
		_, _ = s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE hash = ?"), hash)
		return Session{}, ErrNoSession
	}
	if now.Sub(sess.LastSeen) >= touchEvery {
		if _, err := s.db.DB.ExecContext(ctx, s.db.Q("UPDATE nodegate_sessions SET last_seen_at = ? WHERE hash = ?"), ms(now), hash); err != nil {
			return Session{}, fmt.Errorf("touch session: %w", err)
		}
		sess.LastSeen = now
	}
	return s.actingFor(ctx, sess)
}

// actingFor sets the account a session acts for and its role: a member's
// team (which must be active), or the login's own account as its owner.
func (s *Service) actingFor(ctx context.Context, sess Session) (Session, error) {
	sess.Login, sess.Role = sess.Account, RoleOwner
	team, role, ok, err := s.membership(ctx, sess.Login.ID)
	if err != nil || !ok {
		return sess, err
	}
	a, err := s.Get(ctx, team)
	if errors.Is(err, ErrNotFound) || (err == nil && a.Status != StatusActive) {
		return Session{}, ErrNoSession
	} else if err != nil {
		return Session{}, err
	}
	sess.Account, sess.Role = a, role
	return sess, nil
}

// SignOut ends the session of token (no error when there is none).
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	if _, err := s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE hash = ?"), tokenHash(token)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// PurgeSessions deletes the sessions past their lifetimes (any replica
// may run it; Authenticate refuses them either way).
func (s *Service) PurgeSessions(ctx context.Context) error {
	now := s.now()
	_, err := s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE last_seen_at < ? OR created_at < ?"),
		ms(now.Add(-s.opts.SessionIdle)), ms(now.Add(-s.opts.SessionMax)))
	if err != nil {
		return fmt.Errorf("purge sessions: %w", err)
	}
	return nil
}
