package customer_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/accounts/smtptest"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

var (
	noticeRe = regexp.MustCompile(`id="notice">([^<]*)<`)
	untilRe  = regexp.MustCompile(`until ([A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [A-Z]+)`)
)

// answer is what a form's page tells, apart from its tokens.
func answer(code int, body string) string {
	n := noticeRe.FindStringSubmatch(body)
	if n == nil {
		return strings.Join([]string{http.StatusText(code), errorOf(body)}, " ")
	}
	return http.StatusText(code) + " " + n[1]
}

// captureLogs sends slog's lines to a buffer until the test ends.
func captureLogs(t *testing.T) *testenv.LogBuffer {
	var logs testenv.LogBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &logs
}

// TestMailedPagesAnswerTheSame: with open sign-up and a mail server, the
// sign-up and forgot pages answer the same whatever the email (an
// account's or not, the mail server up or down: the mail is sent after
// the answer); the account exists only once the mailed link was opened;
// a reset link works for reset_ttl (1h), not link_ttl; and one address
// gets at most 3 mails an hour however often it is asked for.
func TestMailedPagesAnswerTheSame(t *testing.T) {
	logs := captureLogs(t)
	mail := smtptest.Start(t)
	relay := testenv.NewProxy(t, mail.Addr())
	s := start(t, func(c *config.Config) {
		c.Accounts.Signup = "open"
		c.Accounts.SMTP = config.SMTP{Addr: relay.Addr(), From: "nodegate@example.com"}
	})
	ask := func(path, email string) string {
		b := newBrowser(t, s.URL())
		b.get(path)
		return answer(b.submit(path, url.Values{"email": {email}}))
	}
	const email, pw = "mailed@example.com", "a mailed password"
	first := ask("/dashboard/signup", email)
	m, ok := mail.Wait(1, 30*time.Second)
	if !ok || !strings.Contains(first, "on its way") {
		t.Fatalf("sign-up by mail: %q, mail %v", first, ok)
	}
	if code, _, _ := newBrowser(t, s.URL()).signIn(email, pw); code != http.StatusUnauthorized {
		t.Fatalf("an account exists before its mailed link was opened: %d", code)
	}
	u, _ := url.Parse(linkRe.FindString(m.Data))
	b := newBrowser(t, s.URL())
	b.get(u.RequestURI())
	if code, body, _ := b.post("/dashboard/signup", url.Values{"token": {u.Query().Get("token")}, "password": {pw}, "password2": {pw}}); code != http.StatusSeeOther {
		t.Fatalf("sign up with the mailed link: %d\n%s", code, body)
	}
	b.createKey("after the mail")
	ask("/dashboard/forgot", email)
	reset, ok := mail.Wait(2, 30*time.Second)
	if !ok || !strings.Contains(reset.Data, "/dashboard/reset?token=") {
		t.Fatalf("no reset mail arrived: %+v", reset)
	}
	um := untilRe.FindStringSubmatch(reset.Data)
	if um == nil {
		t.Fatalf("the reset mail names no end:\n%s", reset.Data)
	}
	until, err := time.Parse(time.RFC1123, um[1])
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(until); left > time.Hour+time.Minute || left < 30*time.Minute {
		t.Errorf("a reset link works for %s more, want about reset_ttl (1h)", left.Round(time.Minute))
	}

	if got, want := ask("/dashboard/signup", email), ask("/dashboard/signup", "nobody@example.com"); got != want {
		t.Errorf("sign-up: an account's email answers %q, another %q", got, want)
	}
	relay.Cut() // the mail server is down: the pages answer as before
	for _, path := range []string{"/dashboard/forgot", "/dashboard/signup"} {
		if got, want := ask(path, email), ask(path, "nobody-else@example.com"); got != want || !strings.Contains(got, "on its way") {
			t.Errorf("%s with the mail server down: an account's email answers %q, another %q", path, got, want)
		}
	}
	relay.Restore()
	for range 10 {
		ask("/dashboard/forgot", email)
	}
	testenv.WaitFor(t, 30*time.Second, "the ten reset requests handled", func() bool {
		out := logs.String()
		return strings.Count(out, "event="+accounts.EventResetMailed)+strings.Count(out, "event="+accounts.EventResetLimited) >= 10
	})
	var toEmail []smtptest.Message
	for _, m := range mail.Messages() {
		if len(m.To) == 1 && m.To[0] == email {
			toEmail = append(toEmail, m)
		}
	}
	if len(toEmail) > accounts.MaxMailsPerHour {
		t.Errorf("%d mails reached %s in an hour, want at most %d", len(toEmail), email, accounts.MaxMailsPerHour)
	}
}
