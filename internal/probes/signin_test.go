package probes

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

// browser keeps cookies and fills in the forms' CSRF token, without
// following redirects.
type browser struct {
	base, csrf string
	c          *http.Client
}

func newBrowser(base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{base: base, c: &http.Client{Jar: jar, Timeout: 2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// do sends req and keeps the page's form token: the status.
func (b *browser) do(resp *http.Response, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfField.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return resp.StatusCode, nil
}

func (b *browser) get(path string) (int, error) { return b.do(b.c.Get(b.base + path)) }

func (b *browser) post(path string, form url.Values) (int, error) {
	form.Set("csrf", b.csrf)
	return b.do(b.c.PostForm(b.base+path, form))
}

// probeSignIn is probe (d): 250 wrong passwords for one account sent at
// once, each from a browser of its own, are verified at most 10 times
// (the account's limit a window) on SQLite and on PostgreSQL; the rest
// are refused with 429 before any hashing. The rule is internal/accounts'
// (attempts reserved before hashing; TestConcurrentGuessesReserved in
// internal/customer).
func probeSignIn(t *testing.T, f *figures) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			s := startService(t, func(c *config.Config) {
				c.NoStarknet = true
				c.Accounts.PageRate = 100_000
				if store == "postgres" {
					c.DatabaseURL = pgtest.DSN(t)
				}
			})
			const email, n = "target@example.com", 250
			owner := newBrowser(s.URL())
			if _, err := owner.get("/dashboard/signup"); err != nil {
				t.Fatal(err)
			}
			if code, err := owner.post("/dashboard/signup", url.Values{"email": {email}, "password": {"the target's password"}, "password2": {"the target's password"}}); code != http.StatusSeeOther {
				t.Fatalf("sign up: %d %v", code, err)
			}
			guessers := make([]*browser, n)
			for i := range guessers {
				guessers[i] = newBrowser(s.URL())
				if _, err := guessers[i].get("/dashboard/signin"); err != nil {
					t.Fatal(err)
				}
			}
			codes := make([]int, n)
			start := time.Now()
			var wg sync.WaitGroup
			for i, g := range guessers {
				wg.Go(func() {
					codes[i], _ = g.post("/dashboard/signin", url.Values{"email": {email}, "password": {fmt.Sprintf("wrong guess %d", i)}})
				})
			}
			wg.Wait()
			took := time.Since(start)
			verified, refused := 0, 0
			for _, c := range codes {
				switch c {
				case http.StatusUnauthorized:
					verified++
				case http.StatusTooManyRequests:
					refused++
				}
			}
			f.add("d sign-in guesses, "+store, "%d concurrent wrong guesses: %d verified (target ≤ 10), %d refused 429, %d other; %v for all",
				n, verified, refused, n-verified-refused, took.Round(time.Millisecond))
			if verified > 10 || verified+refused != n {
				t.Fatalf("%d concurrent wrong guesses: %d verified (want ≤ 10), %d refused", n, verified, refused)
			}
		})
	}
}
