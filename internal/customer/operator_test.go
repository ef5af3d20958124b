package customer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts/smtptest"
	"github.com/nodegate/nodegate/internal/cli/accountscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
)

const opToken = "operator-token-for-tests"

func admin(t *testing.T, s *service.Service, method, path, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+s.AdminAddr()+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+opToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// cli runs `nodegate accounts args...` against the service's store.
func cli(t *testing.T, s *service.Service, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := accountscmd.Run(append(args, "--data-dir", s.Config.DataDir), &out, &errb)
	return code, out.String() + errb.String()
}

var linkRe = regexp.MustCompile(`http://[^\s]+/dashboard/(?:signup|reset)\?token=[A-Za-z0-9_-]+`)

// TestInviteAndResetByMail: with signup by invitation, open sign-up is
// refused; the admin API's invitation is mailed through a real SMTP
// listener, and its link makes the account once. A password reset is
// mailed the same way and ends the old password.
func TestInviteAndResetByMail(t *testing.T) {
	mail := smtptest.Start(t)
	s := start(t, func(c *config.Config) {
		c.Admin.Token = opToken
		c.Accounts.Signup = "invite"
		c.Accounts.SMTP = config.SMTP{Addr: mail.Addr(), From: "nodegate@example.com"}
	})
	b := newBrowser(t, s.URL())
	if _, page := b.get("/dashboard/signup"); !strings.Contains(page, "invitation only") || strings.Contains(page, `id="signup-form"`) {
		t.Fatalf("the sign-up page under invite offers a form:\n%s", page)
	}
	b.get("/dashboard/signin") // a form's token, for a hand-made sign-up
	code, body, _ := b.post("/dashboard/signup", url.Values{"email": {"x@example.com"}, "password": {"long enough pw"}, "password2": {"long enough pw"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "invitation only") {
		t.Fatalf("open sign-up under invite: %d\n%s", code, body)
	}
	code, raw := admin(t, s, "POST", "/admin/invites", `{"email":"Invited@Example.com"}`)
	if code != http.StatusCreated || !strings.Contains(string(raw), `"mailed": true`) {
		t.Fatalf("invite: %d %s", code, raw)
	}
	m, ok := mail.Wait(1, 30*time.Second)
	if !ok || len(m.To) != 1 || m.To[0] != "invited@example.com" || m.From != "nodegate@example.com" {
		t.Fatalf("the invitation was not mailed to the normalised address: %+v", m)
	}
	link := linkRe.FindString(m.Data)
	if link == "" {
		t.Fatalf("no link in the mail:\n%s", m.Data)
	}
	u, _ := url.Parse(link)
	_, page := b.get(u.RequestURI())
	if !strings.Contains(page, `value="invited@example.com"`) {
		t.Fatalf("the invitation page does not show its email:\n%s", page)
	}
	form := url.Values{"token": {u.Query().Get("token")}, "email": {"someone-else@example.com"}, "password": {"invited password"}, "password2": {"invited password"}}
	if code, body, _ := b.post("/dashboard/signup", form); code != http.StatusSeeOther {
		t.Fatalf("sign up with the invitation: %d\n%s", code, body)
	}
	_, keysPage := b.get("/dashboard/keys")
	if !strings.Contains(keysPage, "invited@example.com") {
		t.Fatalf("the account is not the invitation's email:\n%s", keysPage)
	}
	again := newBrowser(t, s.URL())
	if _, page := again.get(u.RequestURI()); !strings.Contains(page, "link:") {
		t.Fatalf("a used invitation's page:\n%s", page)
	}
	again.get("/dashboard/signin")
	form.Del("csrf")
	form.Set("email", "")
	if code, body, _ := again.post("/dashboard/signup", form); code != http.StatusBadRequest || !strings.Contains(body, "link:") {
		t.Fatalf("the invitation used twice: %d\n%s", code, body)
	}

	// Reset: mailed, works once, the old password and sessions end.
	r := newBrowser(t, s.URL())
	r.get("/dashboard/forgot")
	if code, body := r.submit("/dashboard/forgot", url.Values{"email": {"invited@example.com"}}); code != http.StatusOK || !strings.Contains(body, "on its way") {
		t.Fatalf("forgot: %d\n%s", code, body)
	}
	m, ok = mail.Wait(2, 30*time.Second)
	if !ok {
		t.Fatal("no reset mail")
	}
	ru, _ := url.Parse(linkRe.FindString(m.Data))
	r.get(ru.RequestURI())
	if code, body, _ := r.post("/dashboard/reset", url.Values{"token": {ru.Query().Get("token")}, "password": {"a brand new password"}, "password2": {"a brand new password"}}); code != http.StatusSeeOther {
		t.Fatalf("reset: %d\n%s", code, body)
	}
	if code, _ := b.get("/dashboard/keys"); code != http.StatusSeeOther {
		t.Errorf("the session from before the reset still works: %d", code)
	}
	r.get("/dashboard/signin")
	if code, _, _ := r.post("/dashboard/signin", url.Values{"email": {"invited@example.com"}, "password": {"invited password"}}); code != http.StatusUnauthorized {
		t.Errorf("the old password after a reset: %d, want 401", code)
	}
	r.get("/dashboard/signin")
	if code, _, loc := r.post("/dashboard/signin", url.Values{"email": {"invited@example.com"}, "password": {"a brand new password"}}); code != http.StatusSeeOther || loc != "/dashboard/keys" {
		t.Errorf("the new password: %d %s", code, loc)
	}
}

// TestOperatorCommands: the CLI and the admin API list and show accounts,
// set plans, disable (its keys answer 401 within key_refresh, it cannot
// sign in) and enable; a request for the custom tier reaches the operator,
// who grants it.
func TestOperatorCommands(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Admin.Token = opToken })
	b := newBrowser(t, s.URL())
	b.signUp("ops@example.com", "a long password")
	key, id, _ := b.createKey("ops app")
	keyURL := s.URL() + "/v3/" + key
	eventually(t, "the key works", func() bool { code, _ := rpc(t, keyURL, "eth_blockNumber"); return code == 200 })

	if code, out := cli(t, s, "list"); code != 0 || !strings.Contains(out, "ops@example.com") || !strings.Contains(out, "core") {
		t.Fatalf("accounts list: %d\n%s", code, out)
	}
	if code, out := cli(t, s, "show", "ops@example.com"); code != 0 || !strings.Contains(out, id) {
		t.Fatalf("accounts show: %d\n%s", code, out)
	}
	if code, out := cli(t, s, "set-plan", "ops@example.com", "no-such-plan"); code != 2 || !strings.Contains(out, "plan:") {
		t.Fatalf("set-plan to an unknown plan: %d\n%s", code, out)
	}
	if code, out := cli(t, s, "set-plan", "ops@example.com", "developer"); code != 0 {
		t.Fatalf("set-plan: %d\n%s", code, out)
	}
	eventually(t, "the key is on developer", func() bool { k, ok := s.Keys.ByID(id); return ok && k.Plan.Name == "developer" })

	if code, out := cli(t, s, "disable", "ops@example.com"); code != 0 || !strings.Contains(out, "disabled") {
		t.Fatalf("disable: %d\n%s", code, out)
	}
	eventually(t, "the disabled account's key answers 401", func() bool { code, _ := rpc(t, keyURL, "eth_blockNumber"); return code == 401 })
	if code, _ := b.get("/dashboard/keys"); code != http.StatusSeeOther {
		t.Errorf("a disabled account's session still works: %d", code)
	}
	b.get("/dashboard/signin")
	if code, body, _ := b.post("/dashboard/signin", url.Values{"email": {"ops@example.com"}, "password": {"a long password"}}); code != http.StatusUnauthorized || strings.Contains(body, "disabled") {
		t.Errorf("sign in to a disabled account: %d, want 401 as for a wrong password (it confirms nothing)\n%s", code, body)
	}
	if code, raw := admin(t, s, "POST", "/admin/accounts/ops@example.com/enable", ""); code != 200 {
		t.Fatalf("enable: %d %s", code, raw)
	}
	eventually(t, "the enabled account's key works again", func() bool { code, _ := rpc(t, keyURL, "eth_blockNumber"); return code == 200 })

	b.get("/dashboard/signin")
	b.post("/dashboard/signin", url.Values{"email": {"ops@example.com"}, "password": {"a long password"}})
	b.get("/dashboard/plan")
	if code, body, _ := b.post("/dashboard/plan/request", url.Values{"message": {"we need 10x"}}); code != http.StatusSeeOther {
		t.Fatalf("request: %d\n%s", code, body)
	}
	code, out := cli(t, s, "requests")
	if code != 0 || !strings.Contains(out, "we need 10x") {
		t.Fatalf("accounts requests: %d\n%s", code, out)
	}
	code, raw := admin(t, s, "GET", "/admin/plan-requests?status=open", "")
	var open struct {
		Requests []struct{ ID, Email, Plan string }
	}
	if err := json.Unmarshal(raw, &open); code != 200 || err != nil || len(open.Requests) != 1 || open.Requests[0].Plan != "enterprise" {
		t.Fatalf("open requests: %d %s", code, raw)
	}
	if code, out := cli(t, s, "grant", open.Requests[0].ID); code != 0 || !strings.Contains(out, "granted") {
		t.Fatalf("grant: %d\n%s", code, out)
	}
	if code, raw := admin(t, s, "POST", "/admin/plan-requests/"+open.Requests[0].ID+"/decline", ""); code != 400 {
		t.Errorf("declining a granted request: %d %s", code, raw)
	}
	eventually(t, "the key is on enterprise", func() bool { k, ok := s.Keys.ByID(id); return ok && k.Plan.Name == "enterprise" })
	_, body := b.get("/dashboard/plan")
	if !strings.Contains(body, "status-granted") || strings.Contains(body, `id="request"`) {
		t.Errorf("the plan page after the grant:\n%s", body)
	}
	code, raw = admin(t, s, "GET", "/admin/accounts/ops@example.com", "")
	if code != 200 || !strings.Contains(string(raw), `"plan": "enterprise"`) || !strings.Contains(string(raw), id) {
		t.Errorf("admin show: %d %s", code, raw)
	}
	if code, raw := admin(t, s, "GET", "/admin/accounts/nobody@example.com", ""); code != 404 {
		t.Errorf("an unknown account: %d %s", code, raw)
	}
	// A key of an account keeps the account's plan: the keys API refuses to move it alone.
	if code, raw := admin(t, s, "PATCH", "/admin/keys/"+id, `{"plan":"core"}`); code != 400 || !strings.Contains(string(raw), "account") {
		t.Errorf("moving an account's key to another plan: %d %s", code, raw)
	}
	if code, out := cli(t, s, "invite", "new@example.com"); code != 0 || !linkRe.MatchString(out) {
		t.Errorf("invite: %d\n%s", code, out)
	}
}
