package admin

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/ident"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
)

const token = "a-long-enough-admin-token"

func newAdmin(t *testing.T, tok string) (*httptest.Server, *keys.Manager) {
	t.Helper()
	store, err := keys.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	m := &keys.Manager{Store: store, Plans: keyconfig.Defaults()}
	s := New(tok)
	RegisterKeys(s, m)
	s.HandleFunc("GET /admin/extra", func(w http.ResponseWriter, r *http.Request) { WriteJSON(w, 200, map[string]bool{"extra": true}) })
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs, m
}

func call(t *testing.T, hs *httptest.Server, auth, method, path, body string) (int, map[string]any) {
	t.Helper()
	r, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

func TestAdminAuth(t *testing.T) {
	off, _ := newAdmin(t, "")
	if st, out := call(t, off, "Bearer anything", "GET", "/admin/keys", ""); st != 401 || !strings.Contains(out["error"].(string), "admin API is disabled") {
		t.Fatalf("no token configured: %d %v", st, out)
	}
	hs, _ := newAdmin(t, token)
	cases := []struct {
		name, auth string
		want       int
	}{
		{"missing", "", 401},
		{"wrong", "Bearer nope", 401},
		{"basic", "Basic " + token, 401},
		{"prefix of token", "Bearer " + token[:10], 401},
		{"oversized", "Bearer " + strings.Repeat("x", 4096), 401},
		{"right", "Bearer " + token, 200},
		{"scheme case", "bearer " + token, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if st, out := call(t, hs, tc.auth, "GET", "/admin/keys", ""); st != tc.want {
				t.Fatalf("status %d %v, want %d", st, out, tc.want)
			}
			if st, _ := call(t, hs, tc.auth, "GET", "/admin/extra", ""); st != tc.want {
				t.Fatalf("extra route status %d, want %d", st, tc.want)
			}
		})
	}
}

func TestAdminKeys(t *testing.T) {
	hs, m := newAdmin(t, token)
	auth := "Bearer " + token
	st, created := call(t, hs, auth, "POST", "/admin/keys", `{"name":"app","plan":"team","secret":true,"settings":{"allowed_methods":["eth_call"]}}`)
	if st != 201 || !ident.ValidKey(created["key"].(string)) || len(created["secret"].(string)) != 32 || created["plan"] != "team" {
		t.Fatalf("create: %d %v", st, created)
	}
	id := created["id"].(string)
	st, shown := call(t, hs, auth, "GET", "/admin/keys/"+id, "")
	if st != 200 || shown["key"] != nil || shown["secret"] != nil || shown["status"] != "active" {
		t.Fatalf("show: %d %v (must not show the key or secret again)", st, shown)
	}
	if sec := shown["security"].(map[string]any); sec["has_secret"] != true || len(sec["allowed_methods"].([]any)) != 1 {
		t.Fatalf("security: %v", sec)
	}
	st, upd := call(t, hs, auth, "PATCH", "/admin/keys/"+id, `{"allowed_contracts":["0xnot-an-address"]}`)
	if st != 400 || !strings.Contains(upd["error"].(string), `allowed contracts: "0xnot-an-address"`) {
		t.Fatalf("bad update: %d %v", st, upd)
	}
	st, upd = call(t, hs, auth, "PATCH", "/admin/keys/"+id, `{"allowed_origins":["https://*.example.com"],"plan":"core","new_secret":true}`)
	if st != 200 || upd["plan"] != "core" || len(upd["secret"].(string)) != 32 {
		t.Fatalf("update: %d %v", st, upd)
	}
	cases := []struct {
		name, method, path, body string
		want                     int
		msg                      string
	}{
		{"unknown field", "PATCH", "/admin/keys/" + id, `{"colour":"red"}`, 400, "unknown field"},
		{"not json", "POST", "/admin/keys", `{`, 400, "request body"},
		{"empty body", "POST", "/admin/keys", ``, 400, "empty"},
		{"two objects", "POST", "/admin/keys", `{"plan":"team"} {}`, 400, "one JSON object"},
		{"unknown plan", "POST", "/admin/keys", `{"plan":"gold"}`, 400, `plan: "gold" is not configured`},
		{"no plan", "POST", "/admin/keys", `{"name":"x"}`, 400, "plan: required"},
		{"unknown id", "GET", "/admin/keys/ffffffffffff", ``, 404, "no key with this id"},
		{"revoke unknown", "POST", "/admin/keys/ffffffffffff/revoke", ``, 404, "no key"},
		{"oversized body", "POST", "/admin/keys", `{"name":"` + strings.Repeat("x", 70<<10) + `"}`, 400, "request body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, out := call(t, hs, auth, tc.method, tc.path, tc.body)
			if st != tc.want || !strings.Contains(out["error"].(string), tc.msg) {
				t.Fatalf("got %d %v, want %d %q", st, out, tc.want, tc.msg)
			}
		})
	}
	st, rev := call(t, hs, auth, "POST", "/admin/keys/"+id+"/revoke", "")
	if st != 200 || rev["status"] != "revoked" {
		t.Fatalf("revoke: %d %v", st, rev)
	}
	st, _ = call(t, hs, auth, "PATCH", "/admin/keys/"+id, `{"name":"again"}`)
	if st != 400 {
		t.Fatalf("update of a revoked key: %d", st)
	}
	if _, err := m.Create(context.Background(), keys.CreateParams{Plan: "core"}); err != nil {
		t.Fatal(err)
	}
	st, del := call(t, hs, auth, "GET", "/admin/keys", "")
	if st != 200 || len(del["keys"].([]any)) != 2 {
		t.Fatalf("list: %d %v", st, del)
	}
}
