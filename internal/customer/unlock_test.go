package customer_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// lockOut fails sign-ins for email until they are refused.
func lockOut(t *testing.T, base, email string) {
	t.Helper()
	b := newBrowser(t, base)
	for i := range 11 {
		if code, _, _ := b.signIn(email, "a wrong guess "+string(rune('a'+i))); code == http.StatusTooManyRequests {
			return
		}
	}
	t.Fatalf("%s was not locked out by 11 failures", email)
}

// TestOperatorUnlocksAndResets: `nodegate accounts unlock` and POST
// /admin/accounts/{id}/unlock lift a lock-out at once;
// `nodegate accounts reset-password` and its admin route make a one-time
// reset link that sets a new password.
func TestOperatorUnlocksAndResets(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Admin.Token = opToken })
	const email, pw = "locked@example.com", "the locked password"
	newBrowser(t, s.URL()).signUp(email, pw)

	lockOut(t, s.URL(), email)
	if code, out := cli(t, s, "unlock", email); code != 0 || !strings.Contains(out, "limits lifted") {
		t.Fatalf("nodegate accounts unlock: %d %s", code, out)
	}
	if code, body, _ := newBrowser(t, s.URL()).signIn(email, pw); code != http.StatusSeeOther {
		t.Fatalf("sign in after the CLI's unlock: %d\n%s", code, errorOf(body))
	}

	lockOut(t, s.URL(), email)
	if code, raw := admin(t, s, "POST", "/admin/accounts/"+email+"/unlock", ""); code != http.StatusOK {
		t.Fatalf("admin unlock: %d %s", code, raw)
	}
	if code, body, _ := newBrowser(t, s.URL()).signIn(email, pw); code != http.StatusSeeOther {
		t.Fatalf("sign in after the admin API's unlock: %d\n%s", code, errorOf(body))
	}

	code, out := cli(t, s, "reset-password", email)
	if code != 0 || linkRe.FindString(out) == "" {
		t.Fatalf("nodegate accounts reset-password: %d %s", code, out)
	}
	code, raw := admin(t, s, "POST", "/admin/accounts/"+email+"/reset-password", "")
	var got struct {
		Reset struct {
			URL string `json:"url"`
		} `json:"reset"`
	}
	if code != http.StatusOK || json.Unmarshal(raw, &got) != nil || got.Reset.URL == "" {
		t.Fatalf("admin reset-password: %d %s", code, raw)
	}
	u, _ := url.Parse(got.Reset.URL)
	b := newBrowser(t, s.URL())
	b.get(u.RequestURI())
	const next = "the operator's new password"
	if code, body, _ := b.post("/dashboard/reset", url.Values{"token": {u.Query().Get("token")}, "password": {next}, "password2": {next}}); code != http.StatusSeeOther {
		t.Fatalf("reset with the operator's link: %d\n%s", code, errorOf(body))
	}
	if code, _, _ := newBrowser(t, s.URL()).signIn(email, next); code != http.StatusSeeOther {
		t.Errorf("the new password: %d", code)
	}
}

// TestAuditLog: sign-ins, failures, lock-outs, unlocks, resets and key
// changes each write one audit line with a fixed event attribute.
func TestAuditLog(t *testing.T) {
	logs := captureLogs(t)
	s := start(t, func(c *config.Config) { c.Admin.Token = opToken })
	const email, pw = "audited@example.com", "the audited password"
	b := newBrowser(t, s.URL())
	b.signUp(email, pw)
	_, id, _ := b.createKey("audited key")
	b.get("/dashboard/keys/" + id)
	b.post("/dashboard/keys/"+id, url.Values{"action": {"name"}, "name": {"renamed"}})
	b.get("/dashboard/keys/" + id)
	b.post("/dashboard/keys/"+id+"/revoke", url.Values{"confirm": {"yes"}})
	newBrowser(t, s.URL()).signIn(email, pw)
	lockOut(t, s.URL(), email)
	admin(t, s, "POST", "/admin/accounts/"+email+"/unlock", "")
	cli(t, s, "reset-password", email)
	out := logs.String()
	for _, event := range []string{"account_created", "key_created", "key_changed", "key_revoked", "signin", "signin_failed", "signin_limited", "account_unlocked", "reset_requested"} {
		if !strings.Contains(out, "msg=audit event="+event+" ") {
			t.Errorf("no audit line with event=%s", event)
		}
	}
}
