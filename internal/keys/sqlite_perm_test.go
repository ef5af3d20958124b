package keys

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSQLiteFilesArePrivate: keys.db and the -wal and -shm files SQLite
// makes beside it are 0600 (readable by the owner only) from the first
// write, whatever the umask; files an earlier version left 0644 are made
// private on open.
func TestSQLiteFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022) // the usual umask: new files 0644 unless asked otherwise
	defer syscall.Umask(old)
	check := func(t *testing.T, path string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(p), err)
			}
			if mode := st.Mode().Perm(); mode != 0o600 {
				t.Errorf("%s is %#o, want 0600", filepath.Base(p), mode)
			}
		}
	}
	t.Run("new store", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "data", "keys.db")
		s := mustOpen(t, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, path) })
		if _, err := testManager(s).Create(context.Background(), CreateParams{Name: "a", Plan: planTeam}); err != nil {
			t.Fatal(err)
		}
		check(t, path)
	})
	t.Run("files left 0644", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "keys.db")
		s := mustOpen(t, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, path) })
		if _, err := testManager(s).Create(context.Background(), CreateParams{Name: "a", Plan: planTeam}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mustOpen(t, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, path) })
		check(t, path)
	})
}
