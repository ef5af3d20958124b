package keys

import (
	"context"
	"testing"
	"time"
)

// TestRevokedKeysCappedPerAccount: an account that creates and revokes
// keys in a loop keeps at most MaxRevokedPerAccount revoked ones, the
// oldest purged first; its live keys, other accounts' and the operator's
// revoked keys are untouched.
func TestRevokedKeysCappedPerAccount(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open()
		clock := time.Now().UTC().Add(-time.Hour)
		m := &Manager{Store: s, Plans: testPlans(), Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
		revoke := func(account string) string { return revokedKey(t, m, account) }
		operator := revoke("")
		other := revoke("acct-b")
		live, err := m.CreateOwned(ctx, "acct-a", planCore, 5, CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for range MaxRevokedPerAccount + 3 {
			ids = append(ids, revoke("acct-a"))
		}
		recs, err := s.ListOwned(ctx, "acct-a")
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]Status{}
		for _, r := range recs {
			have[r.ID] = r.Status
		}
		if len(recs) != MaxRevokedPerAccount+1 || have[live.ID] != StatusActive {
			t.Fatalf("account holds %d keys (live one %q); want %d revoked and the live one", len(recs), have[live.ID], MaxRevokedPerAccount)
		}
		for i, id := range ids {
			if _, kept := have[id]; kept != (i >= 3) {
				t.Fatalf("revoked key %d of %d kept = %v: the oldest three must go, the rest stay", i, len(ids), kept)
			}
		}
		for _, id := range []string{operator, other} {
			if _, err := s.Get(ctx, id); err != nil {
				t.Fatalf("revoked key %s of another owner: %v", id, err)
			}
		}
	})
}

// TestRevokedKeysPurgedAfterRetention: the accounts' keys revoked longer
// than RevokedRetention ago are deleted (their usage records stay under
// their id); revoked keys with no time yet (an older version's) are
// stamped and kept a full retention; the operator's are kept.
func TestRevokedKeysPurgedAfterRetention(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open()
		now := time.Now().UTC()
		at := now
		m := &Manager{Store: s, Plans: testPlans(), Now: func() time.Time { return at }}
		revokeAt := func(account string, when time.Time) string {
			at = when
			return revokedKey(t, m, account)
		}
		old := revokeAt("acct-a", now.Add(-RevokedRetention-time.Hour))
		recent := revokeAt("acct-b", now.Add(-24*time.Hour))
		operator := revokeAt("", now.Add(-RevokedRetention-time.Hour))
		unstamped := revokeAt("acct-c", now)
		if _, err := s.(*sqlStore).db.ExecContext(ctx, s.(*sqlStore).q("UPDATE nodegate_keys SET revoked_at = 0 WHERE id = ?"), unstamped); err != nil {
			t.Fatal(err)
		}
		if err := s.AddUsage(ctx, []UsageRow{{Day: UsageDay(now.AddDate(0, 0, -40)), KeyID: old, Network: "eth", Method: "eth_call", Requests: 7}}); err != nil {
			t.Fatal(err)
		}
		n, err := s.PurgeRevoked(ctx, now)
		if err != nil || n != 1 {
			t.Fatalf("purged %d, %v; want 1", n, err)
		}
		if _, err := s.Get(ctx, old); !IsNotFound(err) {
			t.Fatalf("key revoked past the retention: %v; want it purged", err)
		}
		for _, id := range []string{recent, operator, unstamped} {
			r, err := s.Get(ctx, id)
			if err != nil {
				t.Fatalf("key %s: %v; want it kept", id, err)
			}
			if id == unstamped && (r.RevokedAt == nil || r.RevokedAt.Before(now.Add(-time.Second))) {
				t.Fatalf("unstamped revoked key got revoked_at %v; want now", r.RevokedAt)
			}
		}
		rows, err := s.Usage(ctx, old, UsageDay(now.AddDate(0, 0, -60)))
		if err != nil || len(rows) != 1 || rows[0].Requests != 7 {
			t.Fatalf("usage of the purged key = %v, %v; want its record kept", rows, err)
		}
	})
}

// revokedKey creates a key on the core plan, the operator's (account "")
// or the account's, revokes it with m and returns its id.
func revokedKey(t *testing.T, m *Manager, account string) string {
	t.Helper()
	ctx := context.Background()
	var c Created
	var err error
	if account == "" {
		c, err = m.Create(ctx, CreateParams{Plan: planCore})
	} else {
		c, err = m.CreateOwned(ctx, account, planCore, 5, CreateParams{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Revoke(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	return c.ID
}
