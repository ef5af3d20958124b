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

// Scope is what an API token may do: read (a viewer's permissions) or
// manage (an admin's). No token may change the plan or the team.
type Scope string

// The scopes of API tokens.
const (
	ScopeRead   Scope = "read"
	ScopeManage Scope = "manage"
)

// Role is the role a scope acts with: the pages' and the API's checks
// are the same (Role.May).
func (s Scope) Role() Role {
	if s == ScopeManage {
		return RoleAdmin
	}
	return RoleViewer
}

// Bounds of API tokens.
const (
	// APITokenPrefix starts every token (so that a leaked one is found).
	APITokenPrefix = "ngt_"
	// MaxAPITokens bounds an account's live tokens.
	MaxAPITokens = 20
	// MinAPITokenTTL and MaxAPITokenTTL bound a token's lifetime.
	MinAPITokenTTL = time.Hour
	MaxAPITokenTTL = 365 * 24 * time.Hour
	// apiTouchEvery bounds the writes of a token's last use.
	apiTouchEvery = time.Minute
)

// APIToken is a token as pages and the API list it (never the token).
type APIToken struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scope      Scope      `json:"scope"`
	CreatedBy  string     `json:"created_by"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

// ParseScope reads a scope.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(s); sc {
	case ScopeRead, ScopeManage:
		return sc, nil
	}
	return "", inputf("scope: want read or manage, got %q", s)
}

// CreateAPIToken makes a token for the account, working ttl; the plain
// token is only in the result. A login may not make a token that does
// more than its role: creator is the role of who makes it.
func (s *Service) CreateAPIToken(ctx context.Context, account string, creator Role, name, scope string, ttl time.Duration) (string, APIToken, error) {
	sc, err := ParseScope(scope)
	if err != nil {
		return "", APIToken{}, err
	}
	if !creator.May(PermManage) {
		return "", APIToken{}, inputf("scope: a %s may not make API tokens", creator)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", APIToken{}, inputf("name: required")
	}
	if err := keys.ValidateName(name); err != nil {
		return "", APIToken{}, Input(err)
	}
	if ttl < MinAPITokenTTL || ttl > MaxAPITokenTTL {
		return "", APIToken{}, inputf("expires: a token works from %s to %d days", MinAPITokenTTL, int(MaxAPITokenTTL/(24*time.Hour)))
	}
	raw, hash, err := newToken()
	if err != nil {
		return "", APIToken{}, err
	}
	id, err := newID("tok_")
	if err != nil {
		return "", APIToken{}, err
	}
	now := s.now()
	t := APIToken{ID: id, Name: name, Scope: sc, CreatedBy: actorOf(ctx), CreatedAt: now.UTC().Truncate(time.Millisecond), ExpiresAt: now.Add(ttl).UTC().Truncate(time.Millisecond)}
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		var got string
		if err := tx.QueryRowContext(ctx, s.db.Q("SELECT id FROM nodegate_accounts WHERE id = ?"+s.db.ForUpdate()), account).Scan(&got); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_api_tokens WHERE account_id = ? AND expires_at < ?"), account, ms(now)); err != nil {
			return fmt.Errorf("purge tokens: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.db.Q("SELECT COUNT(*) FROM nodegate_api_tokens WHERE account_id = ?"), account).Scan(&n); err != nil {
			return fmt.Errorf("count tokens: %w", err)
		}
		if n >= MaxAPITokens {
			return inputf("tokens: an account has at most %d live API tokens: revoke one first", MaxAPITokens)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_api_tokens (hash, id, account_id, name, scope, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
			hash, id, account, t.Name, string(sc), t.CreatedBy, ms(t.CreatedAt), ms(t.ExpiresAt)); err != nil {
			return fmt.Errorf("store token: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", APIToken{}, err
	}
	s.recordChange(ctx, account, ChangeTokenCreated, fmt.Sprintf("API token %s (%s, %s, until %s)", id, t.Name, sc, t.ExpiresAt.Format(time.DateOnly)))
	return APITokenPrefix + raw, t, nil
}

// APITokens lists an account's live tokens, newest first.
func (s *Service) APITokens(ctx context.Context, account string) ([]APIToken, error) {
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q("SELECT id, name, scope, created_by, created_at, expires_at, last_used_at FROM nodegate_api_tokens"+
		" WHERE account_id = ? AND expires_at >= ? ORDER BY created_at DESC, id"), account, ms(s.now()))
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	out := []APIToken{}
	for rows.Next() {
		var t APIToken
		var scope string
		var created, expires, used int64
		if err := rows.Scan(&t.ID, &t.Name, &scope, &t.CreatedBy, &created, &expires, &used); err != nil {
			return nil, fmt.Errorf("read token: %w", err)
		}
		t.Scope, t.CreatedAt, t.ExpiresAt, t.LastUsedAt = Scope(scope), time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC(), fromMS(used)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeAPIToken deletes one of the account's tokens: it stops working at
// once on every replica (each request reads the store).
func (s *Service) RevokeAPIToken(ctx context.Context, account, id string) error {
	res, err := s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_api_tokens WHERE id = ? AND account_id = ?"), id, account)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrNotFound
	}
	s.recordChange(ctx, account, ChangeTokenRevoked, "API token "+id)
	return nil
}

// ErrNoToken: no API token, an unknown or expired one, or one whose
// account is disabled.
var ErrNoToken = errors.New("API token missing, unknown or expired: send Authorization: Bearer ngt_…")

// AuthenticateAPIToken returns the account a token acts for and its
// scope.
func (s *Service) AuthenticateAPIToken(ctx context.Context, token string) (Account, APIToken, error) {
	raw, ok := strings.CutPrefix(token, APITokenPrefix)
	if !ok || len(raw) != 43 {
		return Account{}, APIToken{}, ErrNoToken
	}
	hash := tokenHash(raw)
	var t APIToken
	var account, scope string
	var created, expires, used int64
	err := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT id, account_id, name, scope, created_by, created_at, expires_at, last_used_at FROM nodegate_api_tokens WHERE hash = ?"), hash).
		Scan(&t.ID, &account, &t.Name, &scope, &t.CreatedBy, &created, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, APIToken{}, ErrNoToken
	} else if err != nil {
		return Account{}, APIToken{}, fmt.Errorf("read token: %w", err)
	}
	now := s.now()
	t.Scope, t.CreatedAt, t.ExpiresAt, t.LastUsedAt = Scope(scope), time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC(), fromMS(used)
	if !now.Before(t.ExpiresAt) {
		return Account{}, APIToken{}, ErrNoToken
	}
	a, err := s.Get(ctx, account)
	if errors.Is(err, ErrNotFound) || (err == nil && a.Status != StatusActive) {
		return Account{}, APIToken{}, ErrNoToken
	} else if err != nil {
		return Account{}, APIToken{}, err
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= apiTouchEvery {
		if _, err := s.db.DB.ExecContext(ctx, s.db.Q("UPDATE nodegate_api_tokens SET last_used_at = ? WHERE hash = ?"), ms(now), hash); err != nil {
			return Account{}, APIToken{}, fmt.Errorf("touch token: %w", err)
		}
	}
	return a, t, nil
}
