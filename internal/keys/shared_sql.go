package keys

import (
	"context"
	"database/sql"
	"errors"
)

// SQL is the key store's database for the packages that keep their own
// tables in it (internal/accounts): their schema is a migration of this
// package's (schema_accounts.go), and a change that alters keys (an
// account's plan or status) bumps the keys' change counter in the same
// transaction, so that every replica's Cache follows it.
type SQL struct {
	DB *sql.DB
	s  *sqlStore
}

// SQLOf returns the database under a store made by OpenStore.
func SQLOf(st Store) (*SQL, error) {
	s, ok := st.(*sqlStore)
	if !ok {
		return nil, errors.New("key store: not an SQL store")
	}
	return &SQL{DB: s.db, s: s}, nil
}

// Q rewrites ? placeholders for the database ($1… on PostgreSQL).
func (q *SQL) Q(query string) string { return q.s.q(query) }

// ForUpdate is the clause that locks the rows a SELECT reads until the
// transaction ends ("" on SQLite, whose transactions lock at BEGIN).
func (q *SQL) ForUpdate() string { return q.s.dialect.forUpdate }

// InTx runs fn in a transaction, committed when fn returns nil.
func (q *SQL) InTx(ctx context.Context, fn func(*sql.Tx) error) error { return q.s.inTx(ctx, fn) }

// KeysChanged bumps the keys' change counter inside tx.
func (q *SQL) KeysChanged(ctx context.Context, tx *sql.Tx) error { return q.s.bump(ctx, tx) }

// Describe names the database for messages, without credentials.
func (q *SQL) Describe() string { return q.s.name }
