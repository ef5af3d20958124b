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
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("key store: %w", err)
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
	return s, nil
}

// createPrivate makes the database file 0600 before SQLite opens it: keys
// hold secrets' hashes, and SQLite gives the -wal and -shm files it creates
// the mode of the database file. Files left readable by an earlier version
// are made private too.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("make %s private: %w", p, err)
		}
	}
	return nil
}
