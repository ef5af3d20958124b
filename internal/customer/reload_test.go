package customer_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

var newSecretRe = regexp.MustCompile(`id="new-secret">([^<]+)<`)

// TestReloadRepeatsNoAction: making a key and a new secret answer with a
// redirect (POST-redirect-GET); the page they lead to shows the key and
// secret once, and reading it again (a reload) makes no second key nor
// secret and shows neither.
func TestReloadRepeatsNoAction(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.signUp("reload@example.com", "correct horse battery")
	b.get("/dashboard/keys")
	code, _, loc := b.post("/dashboard/keys", url.Values{"name": {"once"}, "secret": {"1"}})
	if code != http.StatusSeeOther || !strings.HasSuffix(loc, "/created") {
		t.Fatalf("making a key answers %d %q, want 303 to its created page", code, loc)
	}
	_, first := b.get(loc)
	if !newKeyRe.MatchString(first) || !newSecretRe.MatchString(first) {
		t.Fatalf("the created page lacks the key or its secret:\n%s", first)
	}
	resp, err := b.c.Get(s.URL() + loc)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "shown=1") {
		t.Fatalf("reloading the created page: %d %q, want 303 to the key's page", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, keysPage := b.get("/dashboard/keys")
	if n := strings.Count(keysPage, `<td class="name">`); n != 1 {
		t.Fatalf("after a reload the account has %d keys, want 1", n)
	}

	id := keyIDRe.FindStringSubmatch(first)[1]
	b.get("/dashboard/keys/" + id)
	code, _, loc = b.post("/dashboard/keys/"+id, url.Values{"action": {"new-secret"}})
	if code != http.StatusSeeOther {
		t.Fatalf("a new secret answers %d, want 303", code)
	}
	_, shown := b.get(loc)
	m := newSecretRe.FindStringSubmatch(shown)
	if m == nil {
		t.Fatalf("the key page after a new secret does not show it:\n%s", shown)
	}
	_, reloaded := b.get(loc)
	if newSecretRe.MatchString(reloaded) || strings.Contains(reloaded, m[1]) {
		t.Fatalf("a reload shows the secret again:\n%s", reloaded)
	}
	if !strings.Contains(reloaded, "shown once") {
		t.Fatalf("a reload does not say the secret was shown once:\n%s", reloaded)
	}
}

// TestURLsUseThePublicScheme: behind a proxy that terminates TLS
// (accounts.public_url https://), the new key's page shows https:// and
// wss:// URLs, as clients reach the service.
func TestURLsUseThePublicScheme(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Accounts.PublicURL = "https://rpc.example.com" })
	b := newBrowser(t, s.URL())
	b.c.Jar = behindTLS{b.c.Jar} // the proxy's https: the cookies are Secure
	b.signUp("tls@example.com", "correct horse battery")
	b.get("/dashboard/keys")
	_, _, loc := b.post("/dashboard/keys", url.Values{"name": {"behind tls"}})
	_, body := b.get(loc)
	host := strings.TrimPrefix(s.URL(), "http://")
	for _, want := range []string{`id="url-http-0">https://` + host + `/v3/`, `class="url-ws">wss://` + host + `/ws/v3/`, `https://` + host + `/v3/`} {
		if !strings.Contains(body, want) {
			t.Errorf("the new key's page lacks %q:\n%s", want, body)
		}
	}
}

// behindTLS is a cookie jar as a browser talking https to a proxy keeps
// it: every URL is taken as https (so Secure cookies are sent).
type behindTLS struct{ http.CookieJar }

func (j behindTLS) https(u *url.URL) *url.URL { c := *u; c.Scheme = "https"; return &c }

func (j behindTLS) SetCookies(u *url.URL, cs []*http.Cookie) { j.CookieJar.SetCookies(j.https(u), cs) }

func (j behindTLS) Cookies(u *url.URL) []*http.Cookie { return j.CookieJar.Cookies(j.https(u)) }
