package keys

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Revoked keys of accounts are bounded (the dashboard lets a customer
// create and revoke keys at will): each is kept RevokedRetention after its
// revocation, and an account keeps at most MaxRevokedPerAccount of them,
// the oldest purged first when one more is revoked. Operator keys (no
// account) are kept until the operator deletes the store: they are few,
// and a store that never held a key gets a default one (EnsureDefault).
// A purged key's usage records stay under its id (`nodegate keys usage
// ID` still reads them); the account's usage page sums only the keys it
// still has.
const (
	RevokedRetention     = 30 * 24 * time.Hour
	MaxRevokedPerAccount = 50
)

// changeLogKeep is how many change rows the store keeps: a replica more
// changes behind reloads every live key instead.
const changeLogKeep = 10_000

// maxChangesRead bounds the changed keys a refresh reloads one by one; a
// replica further behind reloads every live key.
const maxChangesRead = 1_000

// bumpFor bumps the change counter for a change of key id and logs it
// under the counter's new value, so that replicas reload only that key.
// The oldest log rows beyond changeLogKeep go in the same transaction.
func (s *sqlStore) bumpFor(ctx context.Context, tx *sql.Tx, id string) error {
	if err := s.bump(ctx, tx); err != nil {
		return err
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, "SELECT value FROM nodegate_meta WHERE name = 'keys_version'").Scan(&seq); err != nil {
		return fmt.Errorf("read key change counter: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO nodegate_key_changes (seq, key_id) VALUES (?, ?)"), seq, id); err != nil {
		return fmt.Errorf("log key change: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.q("DELETE FROM nodegate_key_changes WHERE seq <= ?"), seq-changeLogKeep); err != nil {
		return fmt.Errorf("trim key change log: %w", err)
	}
	return nil
}

// ChangedSince returns the ids of the keys changed after change number
// after, up to and including upTo. complete is false when the log does
// not account for every number in between (a change that touched many
// keys, the plans, an older replica's write, rows trimmed, or more than
// maxChangesRead changes): the caller then reloads every live key.
func (s *sqlStore) ChangedSince(ctx context.Context, after, upTo int64) (ids []string, complete bool, err error) {
	if upTo-after > maxChangesRead || upTo <= after {
		return nil, upTo == after, nil
	}
	rows, err := s.db.QueryContext(ctx, s.q("SELECT key_id FROM nodegate_key_changes WHERE seq > ? AND seq <= ? ORDER BY seq"), after, upTo)
	if err != nil {
		return nil, false, fmt.Errorf("read key changes: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	n := int64(0)
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, false, fmt.Errorf("read key changes: %w", err)
		}
		n++
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read key changes: %w", err)
	}
	return ids, n == upTo-after, nil
}

// ListActive returns the active records (through the status index: a
// table of many revoked keys costs nothing here).
func (s *sqlStore) ListActive(ctx context.Context) ([]Record, error) {
	return s.queryRecords(ctx, "list active keys", s.q("SELECT "+keyColumns+" FROM nodegate_keys WHERE status = ?"), string(StatusActive))
}

// GetMany returns the records of the ids that still exist.
func (s *sqlStore) GetMany(ctx context.Context, ids []string) ([]Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
	return s.queryRecords(ctx, "read changed keys", s.q("SELECT "+keyColumns+" FROM nodegate_keys WHERE id IN ("+marks+")"), args...)
}

// PurgeRevoked deletes the accounts' keys revoked more than
// RevokedRetention before now, after stamping now on revoked keys that
// have no time yet (revoked before schema version 6, or by an older
// replica), which are then kept a full retention. It reports how many it
// deleted. Deleting a revoked key changes no replica's cache (revoked keys
// are not in it), so it bumps no counter.
func (s *sqlStore) PurgeRevoked(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q("UPDATE nodegate_keys SET revoked_at = ? WHERE status = ? AND revoked_at = 0"), now.UnixMilli(), string(StatusRevoked)); err != nil {
			return fmt.Errorf("stamp revoked keys: %w", err)
		}
		res, err := tx.ExecContext(ctx, s.q("DELETE FROM nodegate_keys WHERE status = ? AND account_id <> '' AND revoked_at > 0 AND revoked_at < ?"),
			string(StatusRevoked), now.Add(-RevokedRetention).UnixMilli())
		if err != nil {
			return fmt.Errorf("purge revoked keys: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// purgeAccountRevoked bounds an account's revoked keys inside the
// transaction that revoked one at now: those past RevokedRetention go,
// and the oldest beyond MaxRevokedPerAccount (keys with no revocation
// time count as the oldest).
func (s *sqlStore) purgeAccountRevoked(ctx context.Context, tx *sql.Tx, account string, now time.Time) error {
	rows, err := tx.QueryContext(ctx, s.q("SELECT id, revoked_at FROM nodegate_keys WHERE account_id = ? AND status = ? ORDER BY revoked_at DESC, id DESC"), account, string(StatusRevoked))
	if err != nil {
		return fmt.Errorf("list the account's revoked keys: %w", err)
	}
	cutoff := now.Add(-RevokedRetention).UnixMilli()
	var purge []any
	for i := 0; rows.Next(); i++ {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			rows.Close()
			return fmt.Errorf("list the account's revoked keys: %w", err)
		}
		if i >= MaxRevokedPerAccount || (at > 0 && at < cutoff) {
			purge = append(purge, id)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("list the account's revoked keys: %w", err)
	}
	rows.Close()
	if len(purge) == 0 {
		return nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(purge)), ", ")
	if _, err := tx.ExecContext(ctx, s.q("DELETE FROM nodegate_keys WHERE id IN ("+marks+")"), purge...); err != nil {
		return fmt.Errorf("purge the account's revoked keys: %w", err)
	}
	return nil
}
