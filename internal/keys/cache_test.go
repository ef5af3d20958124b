package keys

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/testenv"
)

func newCache(t testing.TB, s Store, static ...string) *Cache {
	t.Helper()
	c, err := NewCache(context.Background(), s, testPlans(), planTeam, static, CacheOptions{Poll: 50 * time.Millisecond, FlushUses: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("new cache: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestCacheFollowsStoreAcrossReplicas(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		// Two replicas, each with its own connection and cache, and a
		// manager on a third connection (the CLI).
		a, b := newCache(t, open()), newCache(t, open())
		m := testManager(open())
		c, err := m.Create(ctx, CreateParams{Name: "app", Plan: planDeveloper})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Cache{a, b} {
			testenv.WaitFor(t, time.Second, "new key visible", func() bool { _, ok := r.Lookup(c.Key); return ok })
		}
		k, _ := a.Lookup(c.Key)
		if k.Plan.Name != planDeveloper || k.Plan.Failover || k.ID != c.ID {
			t.Fatalf("key = %+v", k)
		}
		if _, err := m.Update(ctx, c.ID, Patch{Plan: ptr(planTeam)}); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, time.Second, "plan change visible", func() bool { k, _ := b.Lookup(c.Key); return k != nil && k.Plan.Failover })
		if _, err := m.Revoke(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Cache{a, b} {
			testenv.WaitFor(t, time.Second, "revocation visible", func() bool { _, ok := r.Lookup(c.Key); return !ok })
		}
	})
}

func TestCacheRecordsLastUse(t *testing.T) {
	path := t.TempDir() + "/keys.db"
	s := mustOpen(t, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, path) })
	c, err := testManager(s).Create(context.Background(), CreateParams{Plan: planCore})
	if err != nil {
		t.Fatal(err)
	}
	cache := newCache(t, s)
	if _, ok := cache.Lookup(c.Key); !ok {
		t.Fatal("lookup")
	}
	testenv.WaitFor(t, time.Second, "last use stored", func() bool {
		r, err := s.Get(context.Background(), c.ID)
		return err == nil && r.LastUsedAt != nil
	})
	v, _ := s.Version(context.Background())
	if v != 1 {
		t.Fatalf("recording a use changed the change counter to %d", v)
	}
}

func TestCacheStaticAndUnknownPlan(t *testing.T) {
	path := t.TempDir() + "/keys.db"
	s := mustOpen(t, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, path) })
	m := &Manager{Store: s, Plans: map[string]Plan{"gone": {Name: "gone"}}}
	gone, err := m.Create(context.Background(), CreateParams{Plan: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	static := "0123456789abcdef0123456789abcdef"
	cache := newCache(t, s, static)
	if k, ok := cache.Lookup(static); !ok || !k.Static || k.Plan.Name != planTeam {
		t.Fatalf("static key = %+v, %v", k, ok)
	}
	if _, ok := cache.Lookup(gone.Key); ok {
		t.Fatal("a key whose plan is not configured was accepted")
	}
	for _, bad := range []string{"", static[:31], static + "0", "0123456789ABCDEF0123456789abcdef", static[:31] + "/", "%30123456789abcdef0123456789abcde"} {
		if _, ok := cache.Lookup(bad); ok {
			t.Fatalf("accepted %q", bad)
		}
	}
	if _, err := NewCache(context.Background(), nil, testPlans(), planTeam, []string{"short"}, CacheOptions{}); err == nil {
		t.Fatal("a malformed static key was accepted")
	}
}

// TestCacheSurvivesOutage cuts the replicas' PostgreSQL connection (through a
// loopback proxy): keys in memory keep serving, and a change made while the
// database was unreachable for this replica arrives once it is back.
func TestCacheSurvivesOutage(t *testing.T) {
	dsn := pgtest.DSN(t)
	u, _ := url.Parse(dsn)
	p := testenv.NewProxy(t, u.Host)
	u.Host = p.Addr()
	viaProxy := mustOpen(t, func(ctx context.Context) (Store, error) { return OpenPostgres(ctx, u.String()) })
	direct := mustOpen(t, func(ctx context.Context) (Store, error) { return OpenPostgres(ctx, dsn) })
	m := testManager(direct)
	ctx := context.Background()
	c1, _ := m.Create(ctx, CreateParams{Plan: planTeam})
	cache := newCache(t, viaProxy)
	if _, ok := cache.Lookup(c1.Key); !ok {
		t.Fatal("lookup before outage")
	}
	p.Cut()
	c2, err := m.Create(ctx, CreateParams{Plan: planTeam})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // several failed polls
	if _, ok := cache.Lookup(c1.Key); !ok {
		t.Fatal("a key in memory stopped serving during the outage")
	}
	if _, ok := cache.Lookup(c2.Key); ok {
		t.Fatal("saw a change through a cut connection")
	}
	p.Restore()
	// database/sql must first notice its dead connections.
	testenv.WaitFor(t, 10*time.Second, "changes to resume after the outage", func() bool {
		_, ok := cache.Lookup(c2.Key)
		return ok
	})
}

// BenchmarkLookupCached is the hot path's cost of a key: hash, map lookup,
// constant-time confirm, last-used stamp.
func BenchmarkLookupCached(b *testing.B) {
	s := mustOpen(b, func(ctx context.Context) (Store, error) { return OpenSQLite(ctx, b.TempDir()+"/keys.db") })
	m := testManager(s)
	var plain string
	for i := 0; i < 1000; i++ {
		c, err := m.Create(context.Background(), CreateParams{Plan: planTeam})
		if err != nil {
			b.Fatal(err)
		}
		plain = c.Key
	}
	cache := newCache(b, s)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok := cache.Lookup(plain); !ok {
				b.Fatal("miss")
			}
		}
	})
}

// TestCacheNewKeyWorksAtOnce: a key made through another connection (the
// CLI, the dashboard, another replica) is found on its first lookup, long
// before the next poll; unknown keys arriving together share one check.
func TestCacheNewKeyWorksAtOnce(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		c, err := NewCache(ctx, open(), testPlans(), planTeam, nil, CacheOptions{Poll: time.Hour, FlushUses: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		created, err := testManager(open()).Create(ctx, CreateParams{Name: "new", Plan: planCore})
		if err != nil {
			t.Fatal(err)
		}
		k, ok := c.Lookup(created.Key)
		if !ok || k.ID != created.ID {
			t.Fatalf("new key not found on its first lookup (poll is an hour): %v %v", k, ok)
		}
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if _, ok := c.Lookup("0123456789abcdef0123456789abcdef"); ok {
					t.Error("unknown key found")
				}
			})
		}
		wg.Wait()
	})
}
