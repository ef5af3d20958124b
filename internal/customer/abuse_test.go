package customer_test

import (
	"github.com/nodegate/nodegate/internal/testenv"

	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestTwoAccountsEveryRoute: no route shows or changes another account's
// key, usage or requests; each answers as for a key that does not exist.
func TestTwoAccountsEveryRoute(t *testing.T) {
	s := start(t, nil)
	alice, mallory := newBrowser(t, s.URL()), newBrowser(t, s.URL())
	alice.signUp("alice@example.com", "alice's long password")
	mallory.signUp("mallory@example.com", "mallory's long password")
	key, id, _ := alice.createKey("alice-secret-app")
	_, _, _ = mallory.createKey("mallory app")
	alice.get("/dashboard/plan")
	if code, body, _ := alice.post("/dashboard/plan/request", url.Values{"message": {"alice needs archive nodes"}}); code != http.StatusSeeOther {
		t.Fatalf("request: %d\n%s", code, body)
	}
	eventually(t, "alice's key works", func() bool { code, _ := rpc(t, s.URL()+"/v3/"+key, "eth_blockNumber"); return code == 200 })

	for _, path := range []string{"/dashboard/keys/" + id, "/dashboard/keys/" + id + "/usage", "/dashboard/keys/" + id + "/analytics", "/dashboard/keys/" + id + "/analytics.csv"} {
		code, body := mallory.get(path)
		if code != http.StatusNotFound || strings.Contains(body, "alice-secret-app") {
			t.Errorf("GET %s as mallory: %d, want 404 without alice's key", path, code)
		}
	}
	for _, f := range []url.Values{
		{"action": {"name"}, "name": {"stolen"}},
		{"action": {"new-secret"}},
		{"action": {"allowlists"}, "methods": {"eth_chainId"}},
		{"action": {"networks"}, "network": {"devnet"}},
	} {
		mallory.get("/dashboard/keys")
		if code, _, _ := mallory.post("/dashboard/keys/"+id, f); code != http.StatusNotFound {
			t.Errorf("POST %v to alice's key as mallory: %d, want 404", f, code)
		}
	}
	mallory.get("/dashboard/keys")
	if code, _, _ := mallory.post("/dashboard/keys/"+id+"/revoke", nil); code != http.StatusNotFound {
		t.Errorf("revoke alice's key as mallory: %d, want 404", code)
	}
	for _, path := range []string{"/dashboard/keys", "/dashboard/usage", "/dashboard/plan"} {
		_, body := mallory.get(path)
		for _, secret := range []string{"alice-secret-app", id, "archive nodes", "alice@example.com"} {
			if strings.Contains(body, secret) {
				t.Errorf("mallory's %s shows %q of alice", path, secret)
			}
		}
	}
	// Alice's key is untouched: its name, and it still works.
	_, body := alice.get("/dashboard/keys/" + id)
	if !strings.Contains(body, "alice-secret-app") || strings.Contains(body, "stolen") {
		t.Errorf("alice's key was changed:\n%s", body)
	}
	if code, _ := rpc(t, s.URL()+"/v3/"+key, "eth_blockNumber"); code != 200 {
		t.Errorf("alice's key answers %d after mallory's tries", code)
	}
}

// TestNoHTMLInjection: what a customer writes (a key name, allowlist
// entries, a request's message) is shown escaped, never as markup.
func TestNoHTMLInjection(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.signUp("eve@example.com", "eve's long password")
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>"'`
	_, id, _ := b.createKey(evil)
	b.get("/dashboard/keys/" + id)
	code, body, _ := b.post("/dashboard/keys/"+id, url.Values{"action": {"allowlists"}, "user_agents": {evil}})
	if code != http.StatusSeeOther {
		t.Fatalf("save a user agent with markup: %d\n%s", code, body)
	}
	b.get("/dashboard/plan")
	b.post("/dashboard/plan/request", url.Values{"message": {evil}})
	for _, path := range []string{"/dashboard/keys", "/dashboard/keys/" + id, "/dashboard/keys/" + id + "/usage", "/dashboard/plan"} {
		_, body := b.get(path)
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
			t.Errorf("%s renders the customer's markup", path)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the escaped name", path)
		}
	}
	// An origin with markup is refused with the CLI's message, naming the field.
	b.get("/dashboard/keys/" + id)
	code, body, _ = b.post("/dashboard/keys/"+id, url.Values{"action": {"allowlists"}, "origins": {"<b>x</b>"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "allowed origins") || strings.Contains(body, "<b>x</b>") {
		t.Errorf("a bad origin: %d\n%s", code, body)
	}
}

// TestFormsNameTheField: every form's bad input answers 400 with a
// message naming the field, and changes nothing.
func TestFormsNameTheField(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"email": {"not an email"}, "password": {"long enough pw"}, "password2": {"long enough pw"}}, "email:"},
		{url.Values{"email": {"a@example.com"}, "password": {"short"}, "password2": {"short"}}, "password: at least 10"},
		{url.Values{"email": {"a@example.com"}, "password": {"long enough pw"}, "password2": {"other pw 123"}}, "password: the two passwords differ"},
		{url.Values{"email": {strings.Repeat("a", 300) + "@example.com"}, "password": {"long enough pw"}, "password2": {"long enough pw"}}, "email: at most"},
	} {
		b.get("/dashboard/signup")
		code, body, _ := b.post("/dashboard/signup", c.form)
		if code != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("sign up %v: %d, want 400 naming %q\n%s", c.form, code, c.want, body)
		}
	}
	b.signUp("fields@example.com", "a long password")
	_, id, _ := b.createKey("app")
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"action": {"name"}, "name": {strings.Repeat("n", 101)}}, "name"},
		{url.Values{"action": {"allowlists"}, "methods": {"eth call!"}}, "allowed methods"},
		{url.Values{"action": {"allowlists"}, "contracts": {"0x12"}}, "allowed contracts"},
		{url.Values{"action": {"networks"}, "network": {"no-such-net"}}, "network"},
		{url.Values{"action": {"secret-settings"}, "required": {"1"}}, "secret_required needs a secret"},
	} {
		b.get("/dashboard/keys/" + id)
		code, body, _ := b.post("/dashboard/keys/"+id, c.form)
		if code != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("key form %v: %d, want 400 naming %q\n%s", c.form, code, c.want, body)
		}
	}
	b.get("/dashboard/password")
	code, body, _ := b.post("/dashboard/password", url.Values{"current": {"wrong password"}, "new": {"another long pw"}, "new2": {"another long pw"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "current password") {
		t.Errorf("change password with a wrong one: %d\n%s", code, body)
	}
	b.get("/dashboard/plan")
	code, body, _ = b.post("/dashboard/plan/request", url.Values{"message": {strings.Repeat("m", 2001)}})
	if code != http.StatusBadRequest || !strings.Contains(body, "message: at most") {
		t.Errorf("a too long request: %d\n%s", code, body)
	}
}

// TestCSRFAndCookies: a state-changing form without the page's token, or
// from another site, is refused; the session cookie is HttpOnly and
// SameSite=Lax, and the pages carry a strict CSP.
func TestCSRFAndCookies(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.get("/dashboard/signup")
	form := url.Values{"email": {"c@example.com"}, "password": {"long enough pw"}, "password2": {"long enough pw"}}
	resp, err := b.c.PostForm(s.URL()+"/dashboard/signup", form) // no token
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign up without the token: %d, want 403", resp.StatusCode)
	}
	form.Set("csrf", b.csrf)
	resp, err = b.c.PostForm(s.URL()+"/dashboard/signup", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "nodegate_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/dashboard/" || session.Secure {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Lax, Path /dashboard/, not Secure on plain HTTP", session)
	}
	// Signed in: a form needs the session's token, not the old one.
	b.get("/dashboard/keys")
	for _, c := range []struct {
		name   string
		token  string
		header http.Header
	}{
		{"no token", "", nil},
		{"a wrong token", wrongToken(b.csrf), nil},
		{"another site", b.csrf, http.Header{"Sec-Fetch-Site": {"cross-site"}}},
		{"another origin", b.csrf, http.Header{"Origin": {"http://evil.example"}}},
	} {
		req, _ := http.NewRequest("POST", s.URL()+"/dashboard/keys", strings.NewReader(url.Values{"name": {"csrf"}, "csrf": {c.token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range c.header {
			req.Header[k] = v
		}
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("create a key with %s: %d, want 403", c.name, resp.StatusCode)
		}
	}
	_, body := b.get("/dashboard/keys")
	if strings.Contains(body, `class="name">csrf<`) {
		t.Error("a refused form made a key")
	}
	resp, err = b.c.Get(s.URL() + "/dashboard/keys")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
}

// TestSessionsAndAdminTokenStayApart: the admin API refuses a session
// cookie, the dashboard ignores the admin token; sign-out ends the session
// for every replica (the store forgets it).
func TestSessionsAndAdminTokenStayApart(t *testing.T) {
	const token = "admin-token-for-the-test"
	s := start(t, func(c *config.Config) { c.Admin.Token = token })
	b := newBrowser(t, s.URL())
	b.signUp("sep@example.com", "a long password")
	u, _ := url.Parse(s.URL())
	var cookie string
	for _, c := range b.c.Jar.Cookies(&url.URL{Scheme: "http", Host: u.Host, Path: "/dashboard/"}) {
		if c.Name == "nodegate_session" {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatal("no session cookie")
	}
	req, _ := http.NewRequest("GET", "http://"+s.AdminAddr()+"/admin/accounts", nil)
	req.AddCookie(&http.Cookie{Name: "nodegate_session", Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("admin API with a session cookie: %d, want 401", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", s.URL()+"/dashboard/keys", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/signin" {
		t.Errorf("dashboard with the admin token: %d %s, want a redirect to sign in", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Sign out: the cookie's token is dead, even replayed.
	b.get("/dashboard/keys")
	b.post("/dashboard/signout", nil)
	req, _ = http.NewRequest("GET", s.URL()+"/dashboard/keys", nil)
	req.AddCookie(&http.Cookie{Name: "nodegate_session", Value: cookie})
	resp, err = (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a signed-out session replayed: %d, want a redirect to sign in", resp.StatusCode)
	}
}

// TestSignInLimits: failed sign-ins are limited per account with a clear
// message naming the wait; the right password does not get through the
// limit either, and another account is not affected.
func TestSignInLimits(t *testing.T) {
	s := start(t, nil)
	victim := newBrowser(t, s.URL())
	victim.signUp("victim@example.com", "the victim's password")
	victim.signUp("other@example.com", "the other's password")
	attacker := newBrowser(t, s.URL())
	var last string
	var code int
	for i := 0; i < 11; i++ {
		attacker.get("/dashboard/signin")
		code, last, _ = attacker.post("/dashboard/signin", url.Values{"email": {"victim@example.com"}, "password": {"guess number " + string(rune('a'+i))}})
	}
	if code != http.StatusTooManyRequests || !strings.Contains(last, "too many failed sign-ins") || !strings.Contains(last, "try again in") {
		t.Fatalf("the 11th failure: %d, want 429 with the wait\n%s", code, last)
	}
	fresh := newBrowser(t, s.URL())
	fresh.get("/dashboard/signin")
	if code, _, _ := fresh.post("/dashboard/signin", url.Values{"email": {"victim@example.com"}, "password": {"the victim's password"}}); code != http.StatusTooManyRequests {
		t.Errorf("the right password within the limit's window: %d, want 429", code)
	}
	fresh.get("/dashboard/signin")
	if code, _, loc := fresh.post("/dashboard/signin", url.Values{"email": {"other@example.com"}, "password": {"the other's password"}}); code != http.StatusSeeOther || loc != "/dashboard/keys" {
		t.Errorf("another account: %d %s, want signed in", code, loc)
	}
}

// TestKeyCap: an account has at most its plan's keys (accounts.max_keys);
// revoking one makes room.
func TestKeyCap(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Accounts.MaxKeys = map[string]int{"core": 2} })
	b := newBrowser(t, s.URL())
	b.signUp("cap@example.com", "a long password")
	_, id, _ := b.createKey("one")
	b.createKey("two")
	b.get("/dashboard/keys")
	code, body, _ := b.post("/dashboard/keys", url.Values{"name": {"three"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "keys:") {
		t.Fatalf("a third key on a cap of 2: %d\n%s", code, body)
	}
	b.get("/dashboard/keys/" + id)
	b.post("/dashboard/keys/"+id+"/revoke", url.Values{"confirm": {"yes"}})
	b.createKey("three")
}

// TestPageCap: a signed-in account's dashboard requests are capped per
// minute (accounts.page_rate): over it, 429.
func TestPageCap(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Accounts.PageRate = 20 })
	b := newBrowser(t, s.URL())
	b.signUp("busy@example.com", "a long password")
	refused := 0
	for range 25 {
		if code, _ := b.get("/dashboard/keys"); code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("25 page views in a minute on a cap of 20 were all served")
	}
}

// TestSecretsNeverLogged: passwords, their hashes, session tokens, keys
// and link tokens appear in no log line.
func TestSecretsNeverLogged(t *testing.T) {
	var logs testenv.LogBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	s := start(t, func(c *config.Config) { c.Admin.Token = "admin-token-for-the-test" })
	b := newBrowser(t, s.URL())
	const pw = "never-logged-password"
	b.signUp("quiet@example.com", pw)
	key, _, _ := b.createKey("quiet")
	b.get("/dashboard/keys")
	b.post("/dashboard/signout", nil)
	b.get("/dashboard/signin")
	b.post("/dashboard/signin", url.Values{"email": {"quiet@example.com"}, "password": {"wrong-" + pw}})
	u, _ := url.Parse(s.URL())
	secrets := []string{pw, key, "$argon2id$"}
	for _, c := range b.c.Jar.Cookies(&url.URL{Scheme: "http", Host: u.Host, Path: "/dashboard/"}) {
		secrets = append(secrets, c.Value)
	}
	out := logs.String()
	if !strings.Contains(out, "account created") {
		t.Fatalf("the test did not capture the logs:\n%s", out)
	}
	for _, sec := range secrets {
		if sec != "" && strings.Contains(out, sec) {
			t.Errorf("a secret is in the logs: %q", sec)
		}
	}
}

// wrongToken is token with its first character changed (a token may
// start with any character).
func wrongToken(token string) string {
	if strings.HasPrefix(token, "x") {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
