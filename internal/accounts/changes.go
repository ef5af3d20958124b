package accounts

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// The changes an account's audit page lists (nodegate_audit): who did
// what, when. Unlike the audit log lines (audit.go), they are kept in the
// store for the account's team to read, bounded by auditRetention and
// auditKeep.
const (
	ChangeKeyCreated    = "key_created"
	ChangeKeyChanged    = "key_changed"
	ChangeKeyRevoked    = "key_revoked"
	ChangePlanUpgraded  = "plan_upgraded"
	ChangePlanRequested = "plan_requested"
	ChangeMemberInvited = "member_invited"
	ChangeMemberJoined  = "member_joined"
	ChangeMemberRole    = "member_role"
	ChangeMemberRemoved = "member_removed"
	ChangeAlertsChanged = "alerts_changed"
	ChangeTokenCreated  = "token_created"
	ChangeTokenRevoked  = "token_revoked"
)

const (
	// auditRetention is how long a change is kept.
	auditRetention = 90 * 24 * time.Hour
	// auditKeep bounds an account's kept changes (the newest stay).
	auditKeep = 1000
	// AuditShown is how many changes the audit page lists, newest first.
	AuditShown = 200
)

// Change is one row of an account's audit page.
type Change struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Event  string    `json:"event"`
	Detail string    `json:"detail"`
}

type actorKey struct{}

// WithActor names who acts in ctx (a login's email): the changes made
// under it record that name. Without one, a change records "operator".
func WithActor(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, actorKey{}, who)
}

func actorOf(ctx context.Context) string {
	if who, ok := ctx.Value(actorKey{}).(string); ok && who != "" {
		return who
	}
	return "operator"
}

// recordChange stores one change of account, made after the change
// itself: a store failure here is logged, and the change stands.
func (s *Service) recordChange(ctx context.Context, account, event, detail string) {
	if err := s.storeChange(ctx, account, event, detail); err != nil {
		slog.Error("audit: change not recorded", "account", account, "event", event, "err", err)
	}
}

func (s *Service) storeChange(ctx context.Context, account, event, detail string) error {
	id, err := newID("chg_")
	if err != nil {
		return err
	}
	now := s.now()
	if _, err := s.db.DB.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_audit (id, account_id, at, actor, event, detail) VALUES (?, ?, ?, ?, ?, ?)"),
		id, account, ms(now), actorOf(ctx), event, detail); err != nil {
		return fmt.Errorf("store change: %w", err)
	}
	if _, err := s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_audit WHERE account_id = ? AND (at < ? OR id NOT IN"+
		" (SELECT id FROM nodegate_audit WHERE account_id = ? ORDER BY at DESC, id DESC LIMIT ?))"),
		account, ms(now.Add(-auditRetention)), account, auditKeep); err != nil {
		return fmt.Errorf("prune changes: %w", err)
	}
	return nil
}

// Changes lists an account's newest changes (at most AuditShown).
func (s *Service) Changes(ctx context.Context, account string) ([]Change, error) {
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q("SELECT at, actor, event, detail FROM nodegate_audit WHERE account_id = ? ORDER BY at DESC, id DESC LIMIT ?"),
		account, AuditShown)
	if err != nil {
		return nil, fmt.Errorf("list changes: %w", err)
	}
	defer rows.Close()
	out := []Change{}
	for rows.Next() {
		var c Change
		var at int64
		if err := rows.Scan(&at, &c.Actor, &c.Event, &c.Detail); err != nil {
			return nil, fmt.Errorf("read change: %w", err)
		}
		c.At = time.UnixMilli(at).UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list changes: %w", err)
	}
	return out, nil
}
