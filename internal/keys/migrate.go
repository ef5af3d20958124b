package keys

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are the schema, one entry per version, applied in order and
// never edited once released: a change is a new entry. The SQL is common to
// SQLite and PostgreSQL (text, bigint; times are unix milliseconds).
var migrations = [][]string{
	1: {
		`CREATE TABLE nodegate_keys (
			id           TEXT PRIMARY KEY,
			hash         TEXT NOT NULL UNIQUE,
			name         TEXT NOT NULL,
			plan         TEXT NOT NULL,
			networks     TEXT NOT NULL,
			status       TEXT NOT NULL,
			created_at   BIGINT NOT NULL,
			last_used_at BIGINT NOT NULL DEFAULT 0,
			settings     TEXT NOT NULL
		)`,
		`CREATE TABLE nodegate_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)`,
		`INSERT INTO nodegate_meta (name, value) VALUES ('keys_version', 0)`,
	},
	// Usage records (internal/ratelimit): counts per key, UTC day, network
	// and method, summed in by every replica. Static keys from the config
	// have records too, so key_id is not a foreign key.
	2: {
		`CREATE TABLE nodegate_usage (
			day                 TEXT NOT NULL,
			key_id              TEXT NOT NULL,
			network             TEXT NOT NULL,
			method              TEXT NOT NULL,
			requests            BIGINT NOT NULL DEFAULT 0,
			credits             BIGINT NOT NULL DEFAULT 0,
			errors_rate_limited BIGINT NOT NULL DEFAULT 0,
			errors_invalid      BIGINT NOT NULL DEFAULT 0,
			errors_forbidden    BIGINT NOT NULL DEFAULT 0,
			errors_limit        BIGINT NOT NULL DEFAULT 0,
			errors_upstream     BIGINT NOT NULL DEFAULT 0,
			errors_node         BIGINT NOT NULL DEFAULT 0,
			PRIMARY KEY (day, key_id, network, method)
		)`,
		`CREATE INDEX nodegate_usage_key_day ON nodegate_usage (key_id, day)`,
	},
	3:  accountsSchema,  // schema_accounts.go
	4:  plansSchema,     // schema_plans.go
	5:  dashboardSchema, // schema_dashboard.go
	6:  changesSchema,   // schema_changes.go
	7:  teamSchema,      // schema_team.go
	8:  alertsSchema,    // schema_alerts.go
	9:  tokensSchema,    // schema_tokens.go
	10: analyticsSchema, // schema_analytics.go
}

// SchemaVersion is the schema this nodegate writes.
var SchemaVersion = len(migrations) - 1

// migrate brings the schema to SchemaVersion in one transaction, under the
// dialect's lock so that replicas starting together migrate once.
func (s *sqlStore) migrate(ctx context.Context) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if s.dialect.lockSchema != "" {
			if _, err := tx.ExecContext(ctx, s.dialect.lockSchema); err != nil {
				return fmt.Errorf("lock schema: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS nodegate_schema (version BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("create schema table: %w", err)
		}
		var current int
		err := tx.QueryRowContext(ctx, `SELECT version FROM nodegate_schema`).Scan(&current)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO nodegate_schema (version) VALUES (0)`); err != nil {
				return fmt.Errorf("init schema version: %w", err)
			}
		case err != nil:
			return fmt.Errorf("read schema version: %w", err)
		}
		if current > SchemaVersion {
			return fmt.Errorf("the key store's schema is version %d, newer than this nodegate's (%d): upgrade nodegate", current, SchemaVersion)
		}
		for v := current + 1; v <= SchemaVersion; v++ {
			for _, stmt := range migrations[v] {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migrate key store to version %d: %w", v, err)
				}
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE nodegate_schema SET version = ?`), SchemaVersion); err != nil {
			return fmt.Errorf("record schema version: %w", err)
		}
		return nil
	})
}
