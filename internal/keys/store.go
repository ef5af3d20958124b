package keys

import (
	"context"
	"errors"
	"path/filepath"
	"time"
)

// Store keeps key records. Every change bumps a change counter (Version)
// in the same transaction, which is how every replica's Cache notices it,
// and logs which key it changed under the counter's value, so that the
// Cache reloads only that key (ChangedSince, GetMany).
// Implementations: SQLite (sqlite.go) and PostgreSQL (postgres.go), sharing
// the SQL of sqlstore.go.
type Store interface {
	// Insert adds a new record.
	Insert(ctx context.Context, r Record) error
	// InsertOwned adds a record of r.Account unless that account already
	// has max keys that are not revoked (ErrTooManyKeys).
	InsertOwned(ctx context.Context, r Record, max int) error
	// List returns every record, revoked ones included, oldest first.
	List(ctx context.Context) ([]Record, error)
	// ListOwned returns the records an account owns, oldest first.
	ListOwned(ctx context.Context, account string) ([]Record, error)
	// Get returns the record with the given id, or ErrNotFound.
	Get(ctx context.Context, id string) (Record, error)
	// Modify changes a record atomically: fn sees the current record and
	// edits it; an error from fn aborts the change.
	Modify(ctx context.Context, id string, fn func(*Record) error) (Record, error)
	// Version is the change counter: it grows with every Insert and Modify.
	Version(ctx context.Context) (int64, error)
	// ChangedSince returns the ids of the keys changed after change number
	// after up to upTo, and whether the log accounts for every change in
	// between (when not, the caller reloads every live key: ListActive).
	ChangedSince(ctx context.Context, after, upTo int64) (ids []string, complete bool, err error)
	// ListActive returns the active records only.
	ListActive(ctx context.Context) ([]Record, error)
	// GetMany returns the records of those ids that exist.
	GetMany(ctx context.Context, ids []string) ([]Record, error)
	// PurgeRevoked deletes the accounts' keys revoked longer than
	// RevokedRetention before now, reporting how many.
	PurgeRevoked(ctx context.Context, now time.Time) (int64, error)
	// RecordUse stores last-used times (unix seconds by id). It does not
	// bump the change counter: uses are not changes.
	RecordUse(ctx context.Context, used map[string]int64) error
	// AddUsage adds usage counts (increments) to the stored records.
	AddUsage(ctx context.Context, rows []UsageRow) error
	// Usage returns a key's usage records from day since (YYYY-MM-DD) on.
	Usage(ctx context.Context, keyID, since string) ([]UsageRow, error)
	// StoredPlans returns the plans the store holds (plans_store.go), and
	// PublishPlans replaces them when they differ, reporting a write.
	StoredPlans(ctx context.Context) (map[string]Plan, error)
	PublishPlans(ctx context.Context, plans map[string]Plan) (bool, error)
	// Describe names the store for messages, without credentials.
	Describe() string
	Close() error
}

// ErrNotFound is an id that no key has.
var ErrNotFound = errors.New("no key with this id")

// ErrTooManyKeys refuses a key over its account's cap.
var ErrTooManyKeys = errors.New("the account has as many keys as its plan allows: revoke one first")

// StoreConfig selects a store: PostgreSQL when DatabaseURL is set,
// otherwise the SQLite file keys.db in DataDir.
type StoreConfig struct {
	DataDir     string
	DatabaseURL string
}

// SQLiteFile is the name of the SQLite store inside the data dir.
const SQLiteFile = "keys.db"

// OpenStore opens (creating and migrating as needed) the configured store.
func OpenStore(ctx context.Context, c StoreConfig) (Store, error) {
	if c.DatabaseURL != "" {
		return OpenPostgres(ctx, c.DatabaseURL)
	}
	if c.DataDir == "" {
		return nil, errors.New("key store: no data dir and no database_url")
	}
	return OpenSQLite(ctx, filepath.Join(c.DataDir, SQLiteFile))
}
