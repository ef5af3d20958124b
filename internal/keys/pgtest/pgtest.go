package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
)

// BaseURL is the test server: $NODEGATE_TEST_POSTGRES, or database test on
// 127.0.0.1:5432 as user postgres (trust auth).
func BaseURL() string {
	if u := os.Getenv("NODEGATE_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// DSN creates a fresh schema nodegate_test_<random>, drops it when the test
// ends, and returns a URL whose connections use it (search_path). Without a
// reachable server the test fails when $CI is set and is skipped otherwise.
func DSN(t testing.TB) string {
	t.Helper()
	base := BaseURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", base)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL at %s is required when CI is set: %v", base, err)
		}
		t.Skipf("PostgreSQL at %s unreachable (set CI to make this a failure): %v", base, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "nodegate_test_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
