package admin

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestStoreOutageShowsNoStoreURL: PostgreSQL (reached through a proxy,
// with a password in its URL) goes away; the admin API's 503 names no
// host, port, user or password, only that the store is unavailable, and
// the server log has the error with the password hidden.
func TestStoreOutageShowsNoStoreURL(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := testenv.NewProxy(t, u.Host)
	const password = "pw-that-must-stay-secret" // the test server trusts loopback: any password passes
	u.Host, u.User = proxy.Addr(), url.UserPassword(u.User.Username(), password)
	store, err := keys.OpenPostgres(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	m := &keys.Manager{Store: store, Plans: keyconfig.Defaults()}
	s := New(token)
	RegisterKeys(s, m)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	auth := "Bearer " + token
	_, made := call(t, hs, auth, "POST", "/admin/keys", `{"name":"k","plan":"team"}`)
	id, _ := made["id"].(string)

	var logged testenv.LogBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	proxy.Cut()
	for _, tc := range []struct{ name, method, path string }{
		{"revoke", "POST", "/admin/keys/" + id + "/revoke"},
		{"list", "GET", "/admin/keys"},
		{"create", "POST", "/admin/keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := ""
			if tc.method == "POST" && tc.name == "create" {
				body = `{"plan":"team"}`
			}
			st, out := call(t, hs, auth, tc.method, tc.path, body)
			msg, _ := out["error"].(string)
			if st != 503 || msg != storeUnavailable {
				t.Fatalf("got %d %q, want 503 %q", st, msg, storeUnavailable)
			}
		})
	}
	log := logged.String()
	if !strings.Contains(log, "admin: key store") || strings.Contains(log, password) {
		t.Fatalf("the server log must have the error without the password:\n%s", log)
	}
}
