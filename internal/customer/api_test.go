package customer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/customer"
)

var newTokenRe = regexp.MustCompile(`id="new-token">(ngt_[A-Za-z0-9_-]+)<`)

// wantAPIAccess is the test's own copy of what each API route asks.
var wantAPIAccess = map[string]string{
	"GET /dashboard/api/v1/keys":                "read",
	"POST /dashboard/api/v1/keys":               "manage",
	"GET /dashboard/api/v1/keys/{id}":           "read",
	"PATCH /dashboard/api/v1/keys/{id}":         "manage",
	"POST /dashboard/api/v1/keys/{id}/revoke":   "manage",
	"GET /dashboard/api/v1/keys/{id}/usage":     "read",
	"GET /dashboard/api/v1/usage":               "read",
	"GET /dashboard/api/v1/analytics":           "read",
	"GET /dashboard/api/v1/keys/{id}/analytics": "read",
	"GET /dashboard/api/v1/alerts":              "read",
	"PUT /dashboard/api/v1/alerts":              "manage",
}

// makeToken makes an API token on the tokens page and returns it.
func makeToken(t *testing.T, b *browser, name, scope string) string {
	t.Helper()
	b.get("/dashboard/tokens")
	code, body := b.submit("/dashboard/tokens", url.Values{"name": {name}, "scope": {scope}, "days": {"30"}})
	m := newTokenRe.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("make a %s token: %d\n%s", scope, code, body)
	}
	if _, again := b.get("/dashboard/tokens?made=1"); newTokenRe.MatchString(again) {
		t.Fatal("a reload shows the token again")
	}
	return m[1]
}

// api sends one API request with a bearer token ("" for none) through
// client c (a browser's, to send its cookies too).
func api(t *testing.T, c *http.Client, base, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAPIRoutesByScope: every API route answers a read token, a manage
// token, no token and a signed-in browser's cookie (no token) as its
// access says: 401 without a token (the cookie is never read), 403 when
// the scope does not grant it.
func TestAPIRoutesByScope(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Accounts.PageRate = 10_000 })
	owner := newBrowser(t, s.URL())
	owner.signUp("api@example.com", "correct horse battery")
	_, keyID, _ := owner.createKey("api target")
	tokens := map[string]string{"read": makeToken(t, owner, "reader", "read"), "manage": makeToken(t, owner, "manager", "manage")}

	seen := map[string]bool{}
	for _, r := range customer.APIRoutes() {
		seen[r.Pattern] = true
		if want, ok := wantAPIAccess[r.Pattern]; !ok || want != r.Access {
			t.Errorf("API route %s asks %q, the test's table says %q", r.Pattern, r.Access, want)
		}
	}
	for p := range wantAPIAccess {
		if !seen[p] {
			t.Errorf("API route %s is in the test's table but not served", p)
		}
	}
	grantsOf := map[string]map[string]bool{"read": {"read": true}, "manage": {"read": true, "manage": true}}
	for _, who := range []string{"none", "cookie", "read", "manage"} {
		for _, r := range customer.APIRoutes() {
			method, path, _ := strings.Cut(r.Pattern, " ")
			path = strings.ReplaceAll(path, "{id}", keyID)
			body := ""
			if method != http.MethodGet {
				body = "{}"
			}
			client := http.DefaultClient
			if who == "cookie" {
				client = owner.c
			}
			code, answer := api(t, client, s.URL(), method, path, tokens[who], body)
			want := "allowed"
			switch {
			case who == "none" || who == "cookie":
				want = "401"
			case !grantsOf[who][wantAPIAccess[r.Pattern]]:
				want = "403"
			}
			got := "allowed"
			if code == http.StatusUnauthorized || code == http.StatusForbidden {
				got = strconv.Itoa(code)
			}
			if got != want {
				t.Errorf("%s %s as %s: %d, want %s\n%s", method, path, who, code, want, answer)
			}
		}
	}
}

// TestAPIKeysJourney: with a manage token, make a key through the API
// and call a node with it, rename it, read its usage, revoke it; the
// API refuses what the pages refuse (an unknown network, another
// account's key, a plan change, an unknown field); a revoked token stops
// working; the changes page names the token.
func TestAPIKeysJourney(t *testing.T) {
	s := start(t, nil)
	owner := newBrowser(t, s.URL())
	owner.signUp("journey-api@example.com", "correct horse battery")
	token := makeToken(t, owner, "ci", "manage")
	other := newBrowser(t, s.URL())
	other.signUp("other-api@example.com", "correct horse battery")
	_, othersKey, _ := other.createKey("not yours")
	c := http.DefaultClient

	code, body := api(t, c, s.URL(), "POST", "/dashboard/api/v1/keys", token, `{"name":"from the API","secret":false}`)
	var made struct {
		Key struct {
			ID  string `json:"id"`
			Key string `json:"key"`
		} `json:"key"`
	}
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &made) != nil || made.Key.Key == "" {
		t.Fatalf("make a key: %d\n%s", code, body)
	}
	u := s.URL() + "/v3/" + made.Key.Key
	eventually(t, "the API's key calls a node", func() bool { code, _ := rpc(t, u, "eth_blockNumber"); return code == 200 })

	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		has                      string
	}{
		{"rename", "PATCH", "/dashboard/api/v1/keys/" + made.Key.ID, `{"name":"renamed"}`, 200, `"name": "renamed"`},
		{"unknown network", "POST", "/dashboard/api/v1/keys", `{"name":"x","networks":["nowhere"]}`, 400, "unknown network"},
		{"unknown field", "POST", "/dashboard/api/v1/keys", `{"name":"x","plan":"enterprise"}`, 400, "unknown field"},
		{"a plan through a patch", "PATCH", "/dashboard/api/v1/keys/" + made.Key.ID, `{"plan":"enterprise"}`, 400, "plan:"},
		{"another account's key", "GET", "/dashboard/api/v1/keys/" + othersKey, "", 404, "not found"},
		{"revoke another account's key", "POST", "/dashboard/api/v1/keys/" + othersKey + "/revoke", "", 404, "not found"},
		{"usage", "GET", "/dashboard/api/v1/keys/" + made.Key.ID + "/usage", "", 200, `"usage"`},
		{"analytics", "GET", "/dashboard/api/v1/keys/" + made.Key.ID + "/analytics?period=24h", "", 200, `"period": "24h"`},
		{"analytics, bad period", "GET", "/dashboard/api/v1/analytics?period=1y", "", 400, `period: want 1h, 24h or 30d`},
		{"an http webhook", "PUT", "/dashboard/api/v1/alerts", `{"webhook_url":"http://example.com/x"}`, 400, "webhook:"},
		{"a webhook", "PUT", "/dashboard/api/v1/alerts", `{"webhook_url":"https://example.com/x"}`, 200, `"webhook_secret": "whsec_`},
		{"revoke", "POST", "/dashboard/api/v1/keys/" + made.Key.ID + "/revoke", "", 200, `"status": "revoked"`},
		{"no such route", "GET", "/dashboard/api/v1/plans", "", 404, "no such API route"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := api(t, c, s.URL(), tc.method, tc.path, token, tc.body)
			if code != tc.code || !strings.Contains(body, tc.has) {
				t.Fatalf("%d, want %d with %q\n%s", code, tc.code, tc.has, body)
			}
		})
	}
	eventually(t, "the revoked key is refused", func() bool { code, _ := rpc(t, u, "eth_blockNumber"); return code == 401 })
	if _, other := api(t, c, s.URL(), "GET", "/dashboard/api/v1/keys", token, ""); strings.Contains(other, othersKey) {
		t.Fatalf("the API lists another account's key:\n%s", other)
	}

	_, changes := owner.get("/dashboard/audit")
	if !strings.Contains(changes, "API token tok_") || !strings.Contains(changes, "(ci)") {
		t.Errorf("the changes page does not name the token:\n%s", changes)
	}
	_, page := owner.get("/dashboard/tokens")
	id := regexp.MustCompile(`action="/dashboard/tokens/(tok_[0-9a-f]+)/revoke"`).FindStringSubmatch(page)
	if id == nil {
		t.Fatalf("the tokens page has no revoke button:\n%s", page)
	}
	if code, body, _ := owner.post("/dashboard/tokens/"+id[1]+"/revoke", nil); code != http.StatusSeeOther {
		t.Fatalf("revoke the token: %d\n%s", code, body)
	}
	if code, _ := api(t, c, s.URL(), "GET", "/dashboard/api/v1/keys", token, ""); code != http.StatusUnauthorized {
		t.Fatalf("a revoked token answers %d, want 401", code)
	}
}
