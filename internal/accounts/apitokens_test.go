package accounts_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
)

// TestAPITokenLifetime: a token works until it expires, not after; its
// scope acts as a viewer (read) or an admin (manage); a viewer may not
// make one; lifetimes and scopes outside the bounds are refused.
func TestAPITokenLifetime(t *testing.T) {
	ctx := context.Background()
	st, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := accounts.New(&keys.Manager{Store: st, Plans: keyconfig.Defaults()}, accounts.Options{Signup: accounts.SignupOpen, SignupPlan: "core",
		SessionIdle: time.Hour, SessionMax: time.Hour, DefaultMaxKeys: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, a, err := svc.SignUp(ctx, "tokens@example.com", "a long enough password", "")
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now()
	svc.Now = func() time.Time { return clock }

	for _, tc := range []struct {
		name, scope string
		creator     accounts.Role
		ttl         time.Duration
		err         string
	}{
		{"a viewer", "read", accounts.RoleViewer, 24 * time.Hour, "may not make"},
		{"no scope", "admin", accounts.RoleOwner, 24 * time.Hour, "scope:"},
		{"too short", "read", accounts.RoleOwner, time.Minute, "expires:"},
		{"too long", "read", accounts.RoleOwner, 400 * 24 * time.Hour, "expires:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := svc.CreateAPIToken(ctx, a.ID, tc.creator, "x", tc.scope, tc.ttl); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("CreateAPIToken: %v, want an error with %q", err, tc.err)
			}
		})
	}
	raw, made, err := svc.CreateAPIToken(ctx, a.ID, accounts.RoleAdmin, "ci", "manage", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got, tok, err := svc.AuthenticateAPIToken(ctx, raw)
	if err != nil || got.ID != a.ID || tok.ID != made.ID || tok.Scope.Role() != accounts.RoleAdmin {
		t.Fatalf("a fresh token: %v %v %v", got.ID, tok, err)
	}
	changed := raw[:len(raw)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(raw, "A")]
	if _, _, err := svc.AuthenticateAPIToken(ctx, changed); !errors.Is(err, accounts.ErrNoToken) {
		t.Fatalf("a changed token: %v, want ErrNoToken", err)
	}
	clock = clock.Add(24*time.Hour + time.Second)
	if _, _, err := svc.AuthenticateAPIToken(ctx, raw); !errors.Is(err, accounts.ErrNoToken) {
		t.Fatalf("an expired token: %v, want ErrNoToken", err)
	}
	if ts, _ := svc.APITokens(ctx, a.ID); len(ts) != 0 {
		t.Fatalf("the expired token is still listed: %+v", ts)
	}
}
