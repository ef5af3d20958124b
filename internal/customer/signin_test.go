package customer_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

// newBrowserFrom is a browser whose connections leave from a loopback
// address of its own (127.0.0.2, ...): another client as the dashboard's
// limits see it.
func newBrowserFrom(t *testing.T, base, from string) *browser {
	b := newBrowser(t, base)
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	b.c = &http.Client{Jar: jar, Timeout: 60 * time.Second,
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return b
}

// signIn posts the sign-in form and returns its status, body and target.
func (b *browser) signIn(email, password string) (int, string, string) {
	b.t.Helper()
	b.get("/dashboard/signin")
	return b.post("/dashboard/signin", url.Values{"email": {email}, "password": {password}})
}

// stores are the key stores a sign-in test runs on.
var stores = []struct {
	name string
	edit func(*testing.T, *config.Config)
}{
	{"sqlite", func(*testing.T, *config.Config) {}},
	{"postgres", func(t *testing.T, c *config.Config) { c.DatabaseURL = pgtest.DSN(t) }},
}

// TestConcurrentGuessesReserved: 250 wrong passwords sent at once for one
// account are verified at most 10 times (the account's limit), the others
// refused with 429 before any hashing; then the right password is refused
// too until the window ends.
func TestConcurrentGuessesReserved(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) { c.Accounts.PageRate = 100_000; st.edit(t, c) })
			newBrowser(t, s.URL()).signUp("target@example.com", "the target's password")
			const n = 250
			attackers := make([]*browser, n)
			for i := range attackers {
				attackers[i] = newBrowser(t, s.URL())
				attackers[i].get("/dashboard/signin")
			}
			codes := make([]int, n)
			var wg sync.WaitGroup
			for i, a := range attackers {
				wg.Go(func() {
					codes[i], _, _ = a.post("/dashboard/signin", url.Values{"email": {"target@example.com"}, "password": {"wrong guess " + string(rune('A'+i%26))}})
				})
			}
			wg.Wait()
			verified, refused := 0, 0
			for _, c := range codes {
				switch c {
				case http.StatusUnauthorized:
					verified++
				case http.StatusTooManyRequests:
					refused++
				}
			}
			if verified > 10 || verified+refused != n {
				t.Fatalf("250 concurrent wrong guesses: %d verified (want <= 10), %d refused, codes %v", verified, refused, codes)
			}
			if code, _, _ := newBrowser(t, s.URL()).signIn("target@example.com", "the target's password"); code != http.StatusTooManyRequests {
				t.Errorf("the right password after the limit: %d, want 429", code)
			}
		})
	}
}

// TestStrangerCannotLockOutOwner: failures from an address the account
// never signed in from fill the strangers' limit only: the owner, from an
// address it signed in from before, still signs in; a new address is
// refused until the window ends or the operator unlocks.
func TestStrangerCannotLockOutOwner(t *testing.T) {
	s := start(t, nil)
	const email, pw = "owner@example.com", "the owner's password"
	owner := newBrowserFrom(t, s.URL(), "127.0.0.2")
	owner.signUp(email, pw)
	owner.get("/dashboard/keys")
	owner.post("/dashboard/signout", nil)
	if code, body, _ := owner.signIn(email, pw); code != http.StatusSeeOther {
		t.Fatalf("the owner's first sign-in: %d\n%s", code, body)
	}
	owner.get("/dashboard/keys")
	owner.post("/dashboard/signout", nil)
	stranger := newBrowser(t, s.URL())
	var code int
	for i := range 11 {
		code, _, _ = stranger.signIn(email, "stranger guess "+string(rune('a'+i)))
	}
	if code != http.StatusTooManyRequests {
		t.Fatalf("the stranger's 11th failure: %d, want 429", code)
	}
	if code, body, loc := owner.signIn(email, pw); code != http.StatusSeeOther || loc != "/dashboard/keys" {
		t.Errorf("the owner from a known address after a stranger's failures: %d %s, want signed in\n%s", code, loc, body)
	}
	if code, _, _ := newBrowserFrom(t, s.URL(), "127.0.0.3").signIn(email, pw); code != http.StatusTooManyRequests {
		t.Errorf("a new address within the strangers' window: %d, want 429", code)
	}
}

// TestDisabledAnswersLikeWrongPassword: a disabled account's right
// password gets the same answer as a wrong one: it confirms nothing.
func TestDisabledAnswersLikeWrongPassword(t *testing.T) {
	const token = "admin-token-for-the-test"
	s := start(t, func(c *config.Config) { c.Admin.Token = token })
	const email, pw = "gone@example.com", "the gone password"
	newBrowser(t, s.URL()).signUp(email, pw)
	adminPost(t, s.AdminAddr(), token, "/admin/accounts/"+email+"/disable", "")
	rightCode, right, _ := newBrowser(t, s.URL()).signIn(email, pw)
	wrongCode, wrong, _ := newBrowser(t, s.URL()).signIn(email, "not the password")
	if rightCode != wrongCode || rightCode != http.StatusUnauthorized || errorOf(right) != errorOf(wrong) {
		t.Errorf("disabled account: right password %d %q, wrong %d %q: want the same 401", rightCode, errorOf(right), wrongCode, errorOf(wrong))
	}
}

// errorOf is the error a form page shows.
func errorOf(body string) string {
	i := strings.Index(body, `class="error"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	if j := strings.Index(rest, "</"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// adminPost calls the admin API and fails the test on an answer other
// than 200.
func adminPost(t *testing.T, addr, token, path, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d\n%s", path, resp.StatusCode, out)
	}
	return string(out)
}

// TestOversizedFormAnswers413: a form larger than the dashboard takes is
// answered 413 saying so, not as a failed CSRF check.
func TestOversizedFormAnswers413(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.get("/dashboard/signin")
	code, body, _ := b.post("/dashboard/signin", url.Values{"email": {"big@example.com"}, "password": {strings.Repeat("p", 100<<10)}})
	if code != http.StatusRequestEntityTooLarge || strings.Contains(body, "CSRF") || !strings.Contains(body, "larger than") {
		t.Errorf("a 100 KiB form: %d, want 413 saying it is too large\n%s", code, body)
	}
}

// TestKeyNamesRefuseBidiControls: a key name with a bidirectional
// control or another control character is refused (400 naming the
// field) on the dashboard; a plain Unicode name is kept.
func TestKeyNamesRefuseBidiControls(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.signUp("bidi@example.com", "a long password")
	for _, c := range []struct{ name, value string }{
		{"right-to-left override", "app\u202Egpj.exe"},
		{"left-to-right embedding", "a\u202Ab"},
		{"first strong isolate", "a\u2068b"},
		{"pop directional isolate", "a\u2069b"},
		{"right-to-left mark", "a\u200Fb"},
		{"tab", "a\tb"},
		{"escape", "a\x1b[31mb"},
		{"C1 control", "a\u0085b"},
	} {
		b.get("/dashboard/keys")
		code, body, _ := b.post("/dashboard/keys", url.Values{"name": {c.value}})
		if code != http.StatusBadRequest || !strings.Contains(body, "name: no control") {
			t.Errorf("%s: %d, want 400 naming the name\n%s", c.name, code, errorOf(body))
		}
	}
	b.createKey("ключ 🔑 app")
}

// TestHashQueueBounded: a burst of password hashes beyond the queue's
// bound (accounts.MaxHashWaiting waiting) is refused at once with 429,
// Retry-After and a message saying so, instead of waiting behind every
// other; the burst's others are served.
func TestHashQueueBounded(t *testing.T) {
	s := start(t, func(c *config.Config) { c.Accounts.PageRate = 100_000 })
	const n = 200
	visitors := make([]*browser, n)
	for i := range visitors {
		visitors[i] = newBrowser(t, s.URL())
		visitors[i].get("/dashboard/signup")
	}
	codes := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i, v := range visitors {
		wg.Go(func() {
			email := "burst" + strconv.Itoa(i) + "@example.com"
			codes[i], bodies[i], _ = v.post("/dashboard/signup", url.Values{"email": {email}, "password": {"a long password"}, "password2": {"a long password"}})
		})
	}
	wg.Wait()
	made, busy := 0, 0
	for i, c := range codes {
		switch {
		case c == http.StatusSeeOther:
			made++
		case c == http.StatusTooManyRequests && strings.Contains(bodies[i], "too many sign-ins at once"):
			busy++
		default:
			t.Errorf("visitor %d: %d\n%s", i, c, errorOf(bodies[i]))
		}
	}
	if busy == 0 || made == 0 {
		t.Errorf("%d sign-ups at once: %d made, %d refused as busy; want both (the queue bounded at %d waiting)", n, made, busy, accounts.MaxHashWaiting)
	}
}
