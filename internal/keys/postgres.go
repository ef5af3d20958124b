package keys

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx" for database/sql
)

// pgConnectTimeout bounds the first contact, so that a database that is
// down at start gives a clear error instead of a hang.
const pgConnectTimeout = 5 * time.Second

// OpenPostgres opens the PostgreSQL store at a postgres:// URL and migrates
// its schema. Extra URL parameters pass to the server (search_path=… puts
// the tables in another schema).
func OpenPostgres(ctx context.Context, dsn string) (Store, error) {
	name := "postgres:" + redactURL(dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("key store %s: %w", name, err)
	}
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, pgConnectTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("key store: cannot reach PostgreSQL at %s: %w", redactURL(dsn), err)
	}
	s := &sqlStore{db: db, name: name, dialect: dialect{
		dollar:    true,
		forUpdate: " FOR UPDATE",
		// Any constant: replicas starting together wait for each other here.
		lockSchema: "SELECT pg_advisory_xact_lock(7305849417372419)",
	}}
	if err := s.migrate(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("key store %s: %w", name, err)
	}
	return s, nil
}

// redactURL hides the password of a database URL.
func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
