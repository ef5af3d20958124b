package ratelimit_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/ratelimit"
)

// deadlockOnce is a real key store whose first usage write fails as
// PostgreSQL fails one side of a deadlock between replicas.
type deadlockOnce struct {
	keys.Store
	failed atomic.Bool
}

func (s *deadlockOnce) AddUsage(ctx context.Context, rows []keys.UsageRow) error {
	if !s.failed.Swap(true) {
		return errors.New("record usage: ERROR: deadlock detected (SQLSTATE 40P01)")
	}
	return s.Store.AddUsage(ctx, rows)
}

// TestFinalUsageFlushRetries: the flush at shutdown that fails once (as a
// deadlock with another replica's flush does) is tried again, and what was
// counted is saved.
func TestFinalUsageFlushRetries(t *testing.T) {
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	sink := &deadlockOnce{Store: store}
	u := ratelimit.NewUsage(sink, time.Hour) // no periodic flush before Close
	u.Add("2026-11-27", "k1", "mainnet", "eth_call", 80, keys.UsageErrors{})
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := u.Close(cctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	rows, err := store.Usage(ctx, "k1", "2026-11-27")
	if err != nil || len(rows) != 1 || rows[0].Requests != 1 || rows[0].Credits != 80 {
		t.Fatalf("saved %+v %v, want the one call", rows, err)
	}
}
