package customer_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// start runs nodegate on the embedded default with fast usage flushes
// and the dashboard open for sign-up; edit changes the config first.
func start(t *testing.T, edit func(*config.Config)) *service.Service {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	cfg.RateLimit.UsageFlush = 100 * time.Millisecond
	if edit != nil {
		edit(&cfg)
	}
	return servicetest.Start(t, cfg)
}

// browser is a cookie-keeping HTTP client that fills in forms' CSRF
// tokens as a browser would, without following redirects.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
	// csrf is the token of the last page read.
	csrf string
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// get reads a page and remembers its form token.
func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfField.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return resp.StatusCode, string(body)
}

// post sends a form with the last page's token; it returns the status,
// the body and the redirect's target.
func (b *browser) post(path string, form url.Values) (int, string, string) {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("csrf") == "" {
		form.Set("csrf", b.csrf)
	}
	resp, err := b.c.PostForm(b.base+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfField.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return resp.StatusCode, string(body), resp.Header.Get("Location")
}

// submit posts a form and, as a browser does, follows a See Other to
// the page it names: the status and body are that page's.
func (b *browser) submit(path string, form url.Values) (int, string) {
	b.t.Helper()
	code, body, loc := b.post(path, form)
	if code != http.StatusSeeOther {
		return code, body
	}
	return b.get(loc)
}

// signUp makes an account and leaves the browser signed in.
func (b *browser) signUp(email, password string) {
	b.t.Helper()
	b.get("/dashboard/signup")
	code, body, loc := b.post("/dashboard/signup", url.Values{"email": {email}, "password": {password}, "password2": {password}})
	if code != http.StatusSeeOther || loc != "/dashboard/keys" {
		b.t.Fatalf("sign up %s: %d %s\n%s", email, code, loc, body)
	}
}

var (
	newKeyRe  = regexp.MustCompile(`id="new-key">([0-9a-f]{32})<`)
	keyIDRe   = regexp.MustCompile(`href="/dashboard/keys/([0-9a-f]{12})"`)
	urlHTTPRe = regexp.MustCompile(`id="url-http-0">([^<]+)<`)
)

// createKey makes a key on the keys page and returns its plain key, id
// and first HTTP URL as the page shows them.
func (b *browser) createKey(name string) (key, id, url0 string) {
	b.t.Helper()
	b.get("/dashboard/keys")
	code, body, loc := b.post("/dashboard/keys", url.Values{"name": {name}})
	if code != http.StatusSeeOther || !strings.HasSuffix(loc, "/created") {
		b.t.Fatalf("create key: %d %s\n%s", code, loc, body)
	}
	code, body = b.get(loc)
	if code != http.StatusOK {
		b.t.Fatalf("the created page: %d\n%s", code, body)
	}
	k, i, u := newKeyRe.FindStringSubmatch(body), keyIDRe.FindStringSubmatch(body), urlHTTPRe.FindStringSubmatch(body)
	if k == nil || i == nil || u == nil {
		b.t.Fatalf("the created page lacks the key, its id or its URL:\n%s", body)
	}
	return k[1], i[1], u[1]
}

// rpc posts one JSON-RPC call to url and returns the status and body.
func rpc(t *testing.T, url, method string) (int, string) {
	t.Helper()
	code, body := testenv.PostJSON(t, url, testenv.RPCBody(method, ""))
	return code, string(body)
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testenv.WaitFor(t, 30*time.Second, what, cond)
}
