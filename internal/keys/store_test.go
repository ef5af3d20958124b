package keys

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/ident"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

// stores runs a test against a fresh SQLite file and a fresh PostgreSQL schema.
func stores(t *testing.T, fn func(t *testing.T, open func() Store)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "keys.db")
		fn(t, func() Store {
			return mustOpen(t, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, path) })
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		fn(t, func() Store {
			return mustOpen(t, func(ctx context.Context) (Store, error) { return OpenPostgres(ctx, dsn) })
		})
	})
}

func mustOpen(t testing.TB, open func(context.Context) (Store, error)) Store {
	t.Helper()
	s, err := open(context.Background())
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testManager(s Store) *Manager { return &Manager{Store: s, Plans: testPlans()} }

func TestStoreLifecycle(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open()
		m := testManager(s)
		v0, err := s.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, err := m.Create(ctx, CreateParams{Name: "app", Plan: planTeam, Networks: []string{"mainnet"}, Secret: true})
		if err != nil {
			t.Fatal(err)
		}
		if !ident.ValidKey(c.Key) || len(c.Secret) != 32 || c.ID != IDOf(HashOf(c.Key)) {
			t.Fatalf("created = %+v", c)
		}
		if v, _ := s.Version(ctx); v <= v0 {
			t.Fatalf("version did not grow on insert: %d -> %d", v0, v)
		}
		got, err := s.Get(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "app" || got.Plan != planTeam || got.Status != StatusActive || got.Hash != HashOf(c.Key) ||
			len(got.Networks) != 1 || !got.Security.HasSecret || got.LastUsedAt != nil || !got.CreatedAt.Equal(c.CreatedAt) {
			t.Fatalf("stored = %+v, created %+v", got, c.Record)
		}
		// A second connection (another process) sees the same schema and data.
		other := open()
		list, err := other.List(ctx)
		if err != nil || len(list) != 1 || list[0].ID != c.ID {
			t.Fatalf("list from a second store = %v, %v", list, err)
		}
		u, err := m.Update(ctx, c.ID, Patch{AllowedContracts: &[]string{"0xAbCdEf0000000000000000000000000000000001"}, SecretRequired: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if u.Security.Contracts[0] != "0xabcdef0000000000000000000000000000000001" || !u.Security.SecretRequired || u.Secret != "" {
			t.Fatalf("updated = %+v", u)
		}
		used := time.Now().Unix()
		if err := s.RecordUse(ctx, map[string]int64{c.ID: used}); err != nil {
			t.Fatal(err)
		}
		vBefore, _ := s.Version(ctx)
		got, _ = s.Get(ctx, c.ID)
		if got.LastUsedAt == nil || got.LastUsedAt.Unix() != used {
			t.Fatalf("last used = %v, want %d", got.LastUsedAt, used)
		}
		if _, err := m.Revoke(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Get(ctx, c.ID)
		if got.Status != StatusRevoked || !got.Security.SecretRequired {
			t.Fatalf("after revoke = %+v", got)
		}
		if v, _ := s.Version(ctx); v <= vBefore {
			t.Fatal("revoke did not bump the change counter")
		}
		if _, err := m.Update(ctx, c.ID, Patch{Name: ptr("again")}); !IsInputError(err) {
			t.Fatalf("update of a revoked key: %v", err)
		}
		if _, err := s.Get(ctx, "000000000000"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("get unknown: %v", err)
		}
		if _, err := m.Revoke(ctx, "000000000000"); !IsNotFound(err) {
			t.Fatalf("revoke unknown: %v", err)
		}
	})
}

func TestStoreSchemaVersion(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open().(*sqlStore)
		var v int
		if err := s.db.QueryRowContext(ctx, "SELECT version FROM nodegate_schema").Scan(&v); err != nil || v != SchemaVersion {
			t.Fatalf("schema version = %d, %v; want %d", v, err, SchemaVersion)
		}
		// Reopening migrates nothing and keeps data.
		if _, err := testManager(s).Create(ctx, CreateParams{Plan: planCore}); err != nil {
			t.Fatal(err)
		}
		if list, err := open().List(ctx); err != nil || len(list) != 1 {
			t.Fatalf("after reopen: %v, %v", list, err)
		}
		// A schema from a newer nodegate is refused with a clear message.
		if _, err := s.db.ExecContext(ctx, "UPDATE nodegate_schema SET version = 99"); err != nil {
			t.Fatal(err)
		}
		var newer Store
		var err error
		if s.dialect.dollar {
			newer, err = OpenPostgres(ctx, pgDSNOf(t, s))
		} else {
			newer, err = OpenSQLite(ctx, s.name[len("sqlite:"):])
		}
		if err == nil {
			newer.Close()
			t.Fatal("opened a store with a newer schema")
		}
		if want := "newer than this nodegate"; !contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	})
}

func TestOpenPostgresDown(t *testing.T) {
	// Nothing listens on port 1: a clear error, quickly, never a hang.
	start := time.Now()
	_, err := OpenPostgres(context.Background(), "postgres://nodegate:hunter2@127.0.0.1:1/x?sslmode=disable&connect_timeout=2")
	if err == nil {
		t.Fatal("opened a store on a closed port")
	}
	if !contains(err.Error(), "cannot reach PostgreSQL") || contains(err.Error(), "hunter2") {
		t.Fatalf("error = %q", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestOpenSQLiteBadPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := writeFile(file); err != nil {
		t.Fatal(err)
	}
	// The data dir is a file: a clear error.
	if _, err := OpenStore(context.Background(), StoreConfig{DataDir: file}); err == nil {
		t.Fatal("opened a store under a file")
	}
}
