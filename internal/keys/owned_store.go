package keys

import (
	"context"
	"fmt"
)

// ListOwned returns the keys account owns, revoked ones included, oldest
// first.
func (s *sqlStore) ListOwned(ctx context.Context, account string) ([]Record, error) {
	return s.queryRecords(ctx, "list the account's keys", s.q("SELECT "+keyColumns+" FROM nodegate_keys WHERE account_id = ? ORDER BY created_at, id"), account)
}

// queryRecords reads the records a query selects (keyColumns); what names
// the query in errors.
func (s *sqlStore) queryRecords(ctx context.Context, what, query string, args ...any) ([]Record, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
