package customer_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/customer"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

var (
	inviteLinkRe = regexp.MustCompile(`id="invite-link">([^<]+)<`)
	memberRowRe  = regexp.MustCompile(`data-email="([^"]+)" data-login="([^"]+)"`)
)

// wantAccess is what each route asks of its visitor: the test's own copy
// of the rules, so that a route added without a decision fails here.
var wantAccess = map[string]string{
	"GET /dashboard/style.css":               "anyone",
	"GET /dashboard/{$}":                     "anyone",
	"GET /dashboard/signin":                  "anyone",
	"POST /dashboard/signin":                 "anyone",
	"GET /dashboard/signup":                  "anyone",
	"POST /dashboard/signup":                 "anyone",
	"POST /dashboard/signout":                "anyone",
	"GET /dashboard/forgot":                  "anyone",
	"POST /dashboard/forgot":                 "anyone",
	"GET /dashboard/reset":                   "anyone",
	"POST /dashboard/reset":                  "anyone",
	"GET /dashboard/password":                "signed-in",
	"POST /dashboard/password":               "signed-in",
	"GET /dashboard/keys":                    "read",
	"POST /dashboard/keys":                   "manage",
	"GET /dashboard/keys/{id}":               "read",
	"POST /dashboard/keys/{id}":              "manage",
	"GET /dashboard/keys/{id}/created":       "manage",
	"GET /dashboard/keys/{id}/revoke":        "manage",
	"POST /dashboard/keys/{id}/revoke":       "manage",
	"GET /dashboard/keys/{id}/usage":         "read",
	"GET /dashboard/usage":                   "read",
	"GET /dashboard/plan":                    "read",
	"POST /dashboard/plan/upgrade":           "own",
	"POST /dashboard/plan/request":           "own",
	"GET /dashboard/members":                 "read",
	"POST /dashboard/members":                "own",
	"POST /dashboard/members/{login}/role":   "own",
	"POST /dashboard/members/{login}/remove": "own",
	"GET /dashboard/audit":                   "read",
	"GET /dashboard/tokens":                  "read",
	"POST /dashboard/tokens":                 "manage",
	"POST /dashboard/tokens/{id}/revoke":     "manage",
	"GET /dashboard/usage.csv":               "read",
	"GET /dashboard/keys/{id}/usage.csv":     "read",
	"GET /dashboard/analytics":               "read",
	"GET /dashboard/analytics.csv":           "read",
	"GET /dashboard/keys/{id}/analytics":     "read",
	"GET /dashboard/keys/{id}/analytics.csv": "read",
	"GET /dashboard/alerts":                  "read",
	"POST /dashboard/alerts":                 "manage",
}

// grants is which accesses each role passes.
var grants = map[string]map[string]bool{
	"owner":  {"anyone": true, "signed-in": true, "read": true, "manage": true, "own": true},
	"admin":  {"anyone": true, "signed-in": true, "read": true, "manage": true},
	"viewer": {"anyone": true, "signed-in": true, "read": true},
	"nobody": {"anyone": true},
}

// joinTeam signs up a new browser with an invitation link.
func joinTeam(t *testing.T, base, link, password string) *browser {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, base)
	b.get(u.RequestURI())
	code, body, loc := b.post("/dashboard/signup", url.Values{"token": {u.Query().Get("token")}, "password": {password}, "password2": {password}})
	if code != http.StatusSeeOther || loc != "/dashboard/keys" {
		t.Fatalf("join with %s: %d %s\n%s", link, code, loc, body)
	}
	return b
}

// invite makes an invitation on the team page and returns its link.
func invite(t *testing.T, owner *browser, email, role string) string {
	t.Helper()
	owner.get("/dashboard/members")
	code, body := owner.submit("/dashboard/members", url.Values{"email": {email}, "role": {role}})
	m := inviteLinkRe.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("invite %s as %s: %d\n%s", email, role, code, body)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// TestTeamRoutesByRole: an owner invites an admin and a viewer; every
// route of the dashboard answers each role (and a signed-out visitor)
// as its access says: refused 403 (or sent to sign in) exactly when the
// role does not grant it. The owner cannot be removed; a removed member
// is signed out at once; the changes page says who did what.
func TestTeamRoutesByRole(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { teamRoutesByRole(t, "") })
	t.Run("postgres", func(t *testing.T) { teamRoutesByRole(t, pgtest.DSN(t)) })
}

func teamRoutesByRole(t *testing.T, dsn string) {
	s := start(t, func(c *config.Config) { c.Accounts.PageRate = 10_000; c.DatabaseURL = dsn })
	owner := newBrowser(t, s.URL())
	owner.signUp("owner@example.com", "correct horse battery")
	_, keyID, _ := owner.createKey("team key")
	admin := joinTeam(t, s.URL(), invite(t, owner, "admin@example.com", "admin"), "admin password ok")
	viewer := joinTeam(t, s.URL(), invite(t, owner, "viewer@example.com", "viewer"), "viewer password ok")
	spare := joinTeam(t, s.URL(), invite(t, owner, "spare@example.com", "viewer"), "spare password ok")

	// Every route is in the test's table, with the same access.
	seen := map[string]bool{}
	for _, r := range customer.Routes() {
		seen[r.Pattern] = true
		if want, ok := wantAccess[r.Pattern]; !ok {
			t.Errorf("route %s (%s) is not in the test's table: decide who may use it", r.Pattern, r.Access)
		} else if want != r.Access {
			t.Errorf("route %s asks %q, want %q", r.Pattern, r.Access, want)
		}
	}
	for p := range wantAccess {
		if !seen[p] {
			t.Errorf("route %s is in the test's table but not served", p)
		}
	}

	browsers := map[string]*browser{"owner": owner, "admin": admin, "viewer": viewer, "nobody": newBrowser(t, s.URL())}
	for _, role := range []string{"nobody", "viewer", "admin", "owner"} {
		b := browsers[role]
		var last string // sign-out goes last: it ends the session
		for _, r := range customer.Routes() {
			if strings.HasSuffix(r.Pattern, "/signout") {
				last = r.Pattern
				continue
			}
			checkRoute(t, b, role, r, keyID)
		}
		checkRoute(t, b, role, customer.RouteAccess{Pattern: last, Access: wantAccess[last]}, keyID)
	}

	owner.signIn("owner@example.com", "correct horse battery")
	logins := map[string]string{}
	_, members := owner.get("/dashboard/members")
	for _, m := range memberRowRe.FindAllStringSubmatch(members, -1) {
		logins[m[1]] = m[2]
	}
	if len(logins) != 4 {
		t.Fatalf("the team page lists %d logins, want the owner and 3 members:\n%s", len(logins), members)
	}
	if code, body, _ := owner.post("/dashboard/members/"+logins["owner@example.com"]+"/remove", nil); code != http.StatusBadRequest || !strings.Contains(body, "the owner cannot be removed") {
		t.Errorf("removing the owner: %d, want 400 saying the owner cannot be removed\n%s", code, body)
	}
	owner.get("/dashboard/members")
	if code, body, _ := owner.post("/dashboard/members/"+logins["spare@example.com"]+"/remove", nil); code != http.StatusSeeOther {
		t.Fatalf("remove the spare member: %d\n%s", code, body)
	}
	if code, _ := spare.get("/dashboard/keys"); code != http.StatusSeeOther {
		t.Errorf("a removed member still reads the keys: %d", code)
	}
	if code, _, _ := newBrowser(t, s.URL()).signIn("spare@example.com", "spare password ok"); code != http.StatusUnauthorized {
		t.Errorf("a removed member signs in: %d", code)
	}

	_, audit := owner.get("/dashboard/audit")
	for _, want := range []string{"admin@example.com invited as admin", "admin@example.com joined as admin", "spare@example.com removed", `<td class="actor">owner@example.com</td><td class="event">key_created</td>`, `<td class="actor">admin@example.com</td><td class="event">key_created</td>`} {
		if !strings.Contains(audit, want) {
			t.Errorf("the changes page lacks %q:\n%s", want, audit)
		}
	}
	if strings.Contains(audit, `<td class="actor">viewer@example.com</td><td class="event">key`) {
		t.Errorf("the changes page shows a viewer's key change:\n%s", audit)
	}
}

// checkRoute sends one route as one role and checks it is refused
// exactly when the role does not grant the route's access.
func checkRoute(t *testing.T, b *browser, role string, r customer.RouteAccess, keyID string) {
	t.Helper()
	method, path, _ := strings.Cut(r.Pattern, " ")
	path = strings.NewReplacer("{$}", "", "{id}", keyID, "{login}", "acct_0000000000000000").Replace(path)
	var code int
	var body, loc string
	if method == http.MethodGet {
		resp, err := b.c.Get(b.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		code, loc = resp.StatusCode, resp.Header.Get("Location")
	} else {
		b.get("/dashboard/signin") // a page with a form token for this browser
		if role != "nobody" {
			b.get("/dashboard/password")
		}
		code, body, loc = b.post(path, url.Values{})
	}
	allowed := grants[role][wantAccess[r.Pattern]]
	refused := code == http.StatusForbidden || (code == http.StatusSeeOther && loc == "/dashboard/signin" && wantAccess[r.Pattern] != "anyone")
	if allowed == refused {
		t.Errorf("%s %s as %s (access %s): %d %s, want allowed=%v\n%.300s", method, path, role, r.Access, code, loc, allowed, body)
	}
}
