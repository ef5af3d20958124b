package keys

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // pure-Go SQLite driver: no cgo
)

// OpenSQLite opens the SQLite store at path, creating the file, its
// directory and the schema when missing. The CLI and a running server may
// open the same file: WAL mode and a busy timeout let them share it, and
// transactions take the write lock at BEGIN so that read-modify-write
// changes never interleave.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("key store: create data dir: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("key store: open %s: %w", path, err)
	}
	s := &sqlStore{db: db, name: "sqlite:" + path}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("key store: open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("key store %s: %w", path, err)
	}
	// Keys hold secrets' hashes: keep the file private to the user.
	_ = os.Chmod(path, 0o600)
	return s, nil
}
