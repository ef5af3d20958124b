package customer_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/golang-jwt/jwt/v5"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/accounts/smtptest"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// journeyAudience is the "aud" the journey's service asks of tokens.
const journeyAudience = "nodegate-journey"

// hookPost is one POST the journey's webhook receiver got.
type hookPost struct {
	signature string
	body      []byte
}

// hookReceiver is an HTTPS server on loopback that keeps every POST; its
// certificate is in caFile for the service to trust.
type hookReceiver struct {
	srv    *httptest.Server
	caFile string
	mu     sync.Mutex
	posts  []hookPost
}

func startHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		h.mu.Lock()
		h.posts = append(h.posts, hookPost{signature: r.Header.Get(accounts.SignatureHeader), body: body})
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	h.caFile = filepath.Join(t.TempDir(), "receiver-ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	if err := os.WriteFile(h.caFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *hookReceiver) received() []hookPost {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookPost(nil), h.posts...)
}

// invitationLink waits for the invitation mailed to email and returns its
// link on the service at base (the mailed one names the configured
// listen address, port 0 in tests).
func invitationLink(t *testing.T, mail *smtptest.Server, base, email string) string {
	t.Helper()
	var link string
	eventually(t, "the invitation mailed to "+email, func() bool {
		for _, m := range mail.Messages() {
			if len(m.To) == 1 && m.To[0] == email {
				link = linkRe.FindString(m.Data)
			}
		}
		return link != ""
	})
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return base + u.RequestURI()
}

// alertMails are the alert mails received so far.
func alertMails(mail *smtptest.Server) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range mail.Messages() {
		if strings.Contains(m.Data, "of its daily credits") {
			out = append(out, m)
		}
	}
	return out
}

// signedToken is a JWT for the journey's audience, signed by priv and
// naming its public key kid.
func signedToken(t *testing.T, priv *ecdsa.PrivateKey, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"aud": journeyAudience, "exp": time.Now().Add(time.Hour).Unix()})
	tok.Header["kid"] = kid
	s, err := tok.SignedString(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// callFrom posts eth_blockNumber to rpcURL from the local address from
// (127.0.0.1, 127.0.0.2: every 127/8 address is this host's loopback),
// with a bearer token when one is given.
func callFrom(t *testing.T, from, rpcURL, token string) (int, string) {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true}}
	r, err := http.NewRequest(http.MethodPost, rpcURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// save opens page, runs the steps that fill a form, and waits for the
// page the form's answer redirects to (it shows a notice).
func save(t *testing.T, ctx context.Context, what, page string, fill ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	steps := append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(page)}, fill...)
	do(t, ctx, what, append(steps, chromedp.WaitVisible(chromedp.ID("notice")))...)
}

// joinWith signs the browser out and signs up with an invitation link.
func joinWith(t *testing.T, ctx context.Context, link, password string) {
	t.Helper()
	do(t, ctx, "join with "+link,
		chromedp.Navigate(link),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.SendKeys(chromedp.ID("password2"), password),
		chromedp.Click(chromedp.ID("signup")),
		chromedp.WaitVisible(chromedp.ID("who")),
	)
}

// signOutIn signs the browser out and in as email.
func signOutIn(t *testing.T, ctx context.Context, base, email, password string) {
	t.Helper()
	do(t, ctx, "sign in as "+email,
		chromedp.Navigate(base+"/dashboard/password"),
		chromedp.Click(chromedp.CSS(".signout button")),
		chromedp.WaitVisible(chromedp.ID("signin-form")),
		chromedp.Navigate(base+"/dashboard/signin"),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("who")),
	)
}

// TestBrowserTeamJourney is the journey in headless Chromium: a
// team of two (the owner invites an admin by mail); the admin makes a
// key allowing 127.0.0.1 only, uploads a public key and requires a JWT:
// without a token the key is refused (401), with one signed by the
// uploaded key answered, from 127.0.0.2 refused (403); the owner sets the
// key's credits per day and a webhook (the receiver is on loopback,
// opened by accounts.webhook_private_targets); calls cross 75% of the
// plan's daily credits and stop at the key's own limit: the receiver gets
// one POST whose signature checks under the secret the page showed, and
// the owner one alert mail; the analytics page shows the latency of
// eth_blockNumber; a viewer sees the keys, alerts and analytics and
// changes nothing (no form, and a forged POST is refused 403).
func TestBrowserTeamJourney(t *testing.T) {
	ctx := chrome(t)
	mail := smtptest.Start(t)
	hook := startHookReceiver(t)
	s := start(t, func(c *config.Config) {
		c.Accounts.Signup = "invite"
		c.Accounts.SMTP = config.SMTP{Addr: mail.Addr(), From: "nodegate@example.com"}
		c.Accounts.WebhookPrivateTargets = []string{"127.0.0.1"}
		c.Accounts.WebhookCAFile = hook.caFile
		c.JWT.Audience = journeyAudience
		core := c.Plans[config.PlanCore]
		core.DailyCredits = 1000 // 75%: 750; 85%: 850, beyond the key's own 800
		c.Plans[config.PlanCore] = core
	})
	base := s.URL() + "/dashboard"
	if _, err := s.Accounts.Invite(context.Background(), "owner@example.com"); err != nil {
		t.Fatal(err)
	}
	joinWith(t, ctx, invitationLink(t, mail, s.URL(), "owner@example.com"), "owner password ok")

	save(t, ctx, "invite an admin", base+"/members",
		chromedp.SendKeys(chromedp.ID("member-email"), "admin@example.com"),
		chromedp.SetValue(chromedp.ID("member-role"), "admin"),
		chromedp.Click(chromedp.ID("invite")))
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".signout button")), chromedp.WaitVisible(chromedp.ID("signin-form")))
	joinWith(t, ctx, invitationLink(t, mail, s.URL(), "admin@example.com"), "admin password ok")

	keyID, rpcURL, token := adminSecuresAKey(t, ctx, base)
	refusalsOfTheSecuredKey(t, rpcURL, token)

	signOutIn(t, ctx, s.URL(), "owner@example.com", "owner password ok")
	secret := ownerSetsLimitAndWebhook(t, ctx, base, keyID, hook)
	alertOnceAt75(t, s, mail, hook, rpcURL, token, secret)
	journeyShots(t, ctx, base+"/alerts", "journey-alerts")

	eventually(t, "the analytics page shows eth_blockNumber's latency", func() bool {
		do(t, ctx, "open analytics", chromedp.Navigate(base+"/analytics?period=1h"))
		return has(t, ctx, "#latency") && regexp.MustCompile(`eth_blockNumber\s+\d+\s+[\d,]+\s+[\d.]+\s+[\d.]+\s+[\d.]+`).MatchString(text(t, ctx, "#latency"))
	})

	save(t, ctx, "invite a viewer", base+"/members",
		chromedp.SendKeys(chromedp.ID("member-email"), "viewer@example.com"),
		chromedp.SetValue(chromedp.ID("member-role"), "viewer"),
		chromedp.Click(chromedp.ID("invite")))
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".signout button")), chromedp.WaitVisible(chromedp.ID("signin-form")))
	joinWith(t, ctx, invitationLink(t, mail, s.URL(), "viewer@example.com"), "viewer password ok")
	journeyShots(t, ctx, base+"/keys/"+keyID, "journey-viewer-key")
	viewerChangesNothing(t, ctx, s, base, keyID)
}

// journeyShots opens url at 390 and 1280 px, checks its layout, and
// saves its screenshots (name-390, name-1280) for docs/dashboard.md.
func journeyShots(t *testing.T, ctx context.Context, url, name string) {
	t.Helper()
	for _, width := range []int{390, 1280} {
		do(t, ctx, "set the window", chromedp.EmulateViewport(int64(width), 900))
		do(t, ctx, "open "+name, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("main")))
		checkLayout(t, ctx, width, name)
		shot(t, ctx, name+"-"+strconv.Itoa(width))
	}
}

// adminSecuresAKey makes a key on the pages, allows 127.0.0.1 only,
// uploads a P-256 public key and requires a JWT; it returns the key's id,
// its URL and a token signed by the uploaded key.
func adminSecuresAKey(t *testing.T, ctx context.Context, base string) (keyID, rpcURL, token string) {
	do(t, ctx, "make a key",
		chromedp.Navigate(base+"/keys"),
		chromedp.SendKeys(chromedp.ID("key-name"), "team journey"),
		chromedp.Click(chromedp.ID("create")),
		chromedp.WaitVisible(chromedp.ID("url-http-0")))
	keyID, rpcURL = text(t, ctx, "#new-key-id"), text(t, ctx, "#url-http-0")
	page := base + "/keys/" + keyID
	save(t, ctx, "allow 127.0.0.1 only", page,
		chromedp.SetValue(chromedp.ID("allowed_ips"), "127.0.0.1"),
		chromedp.Click(chromedp.ID("save-addresses")))
	priv, pub := testenv.JWTKey(t)
	save(t, ctx, "upload a public key", page,
		chromedp.SendKeys(chromedp.ID("jwt_name"), "journey"),
		chromedp.SetValue(chromedp.ID("jwt_pem"), pub),
		chromedp.Click(chromedp.ID("add-jwt-key")))
	save(t, ctx, "require a JWT", page,
		chromedp.Click(chromedp.ID("jwt_required")),
		chromedp.Click(chromedp.ID("save-jwt-required")))
	if got := text(t, ctx, "#jwt-keys"); !strings.Contains(got, "journey (ES256)") {
		t.Fatalf("the key page lists the public keys as %q", got)
	}
	return keyID, rpcURL, signedToken(t, priv, "journey")
}

// refusalsOfTheSecuredKey: without a token 401, with one 200, from an
// address outside the list 403 (with the token).
func refusalsOfTheSecuredKey(t *testing.T, rpcURL, token string) {
	eventually(t, "a call without a JWT refused 401", func() bool {
		code, body := callFrom(t, "127.0.0.1", rpcURL, "")
		return code == http.StatusUnauthorized && strings.Contains(body, "JWT required")
	})
	if code, body := callFrom(t, "127.0.0.1", rpcURL, token); code != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("a call with the JWT from 127.0.0.1: %d %s", code, body)
	}
	if code, body := callFrom(t, "127.0.0.2", rpcURL, token); code != http.StatusForbidden {
		t.Fatalf("a call with the JWT from 127.0.0.2 (not allowed): %d %s, want 403", code, body)
	}
}

// ownerSetsLimitAndWebhook sets the key's credits per day (800) and the
// account's webhook; it returns the webhook secret the page showed once.
func ownerSetsLimitAndWebhook(t *testing.T, ctx context.Context, base, keyID string, hook *hookReceiver) string {
	save(t, ctx, "set the key's credits per day", base+"/keys/"+keyID,
		chromedp.SetValue(chromedp.ID("daily_credits"), "800"),
		chromedp.Click(chromedp.ID("save-limits")))
	save(t, ctx, "register the webhook", base+"/alerts",
		chromedp.SetValue(chromedp.ID("webhook-url"), hook.srv.URL+"/nodegate-alerts"),
		chromedp.Click(chromedp.ID("save-alerts")))
	secret := text(t, ctx, "#webhook-secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the alerts page shows the secret %q", secret)
	}
	return secret
}

// alertOnceAt75 calls (80 credits each) until the key's own 800 a day
// refuses: 75% of the plan's 1000 is crossed, 85% never. The receiver
// gets one signed POST for 75%, the owner one mail.
func alertOnceAt75(t *testing.T, s *service.Service, mail *smtptest.Server, hook *hookReceiver, rpcURL, token, secret string) {
	eventually(t, "the key's own credits per day refuse a call", func() bool {
		code, _ := callFrom(t, "127.0.0.1", rpcURL, token)
		return code == http.StatusTooManyRequests
	})
	eventually(t, "the webhook POST and the alert mail delivered", func() bool {
		return len(hook.received()) >= 1 && len(alertMails(mail)) >= 1 && deliveredBoth(t, s)
	})
	posts := hook.received()
	if len(posts) != 1 {
		t.Fatalf("the receiver got %d POSTs, want 1", len(posts))
	}
	if err := accounts.VerifySignature(secret, posts[0].signature, posts[0].body, time.Now(), 5*time.Minute); err != nil {
		t.Fatalf("the POST's signature %q: %v", posts[0].signature, err)
	}
	var a accounts.Alert
	if err := json.Unmarshal(posts[0].body, &a); err != nil || a.Threshold != 75 || a.Budget != 1000 {
		t.Fatalf("the POST's body %s (%v), want threshold 75 of 1000", posts[0].body, err)
	}
	if ms := alertMails(mail); len(ms) != 1 || ms[0].To[0] != "owner@example.com" || !strings.Contains(ms[0].Data, "used 75% of its daily credits") {
		t.Fatalf("alert mails: %+v, want one to the owner for 75%%", ms)
	}
}

// deliveredBoth reports whether the account's deliveries are exactly the
// mail and the webhook POST, both delivered.
func deliveredBoth(t *testing.T, s *service.Service) bool {
	owner, err := s.Accounts.ByEmail(context.Background(), "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := s.Accounts.Deliveries(context.Background(), owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range ds {
		if d.Status == accounts.DeliveryDelivered {
			n++
		}
	}
	return n == 2 && len(ds) == 2
}

// viewerChangesNothing: the viewer reads the keys, the key (its client
// addresses, public keys and limits too), the alerts and the analytics,
// finds no form that changes them, and a POST it forges
// with its own form token is refused 403, the key unchanged.
func viewerChangesNothing(t *testing.T, ctx context.Context, s *service.Service, base, keyID string) {
	for _, p := range []struct{ path, shows, noForm string }{
		{"/keys", "#keys", "#create-form"},
		{"/keys/" + keyID, "#key-id", "#limits-form"},
		{"/alerts", "#deliveries", "#alerts-form"},
		{"/analytics?period=1h", "#latency", "form[method=post]:not(.signout)"},
		{"/members", "#members", "#invite-form"},
	} {
		do(t, ctx, "open "+p.path, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS(p.shows)))
		if has(t, ctx, p.noForm) {
			t.Errorf("the viewer's %s has %s", p.path, p.noForm)
		}
	}
	do(t, ctx, "open the key", chromedp.Navigate(base+"/keys/"+keyID), chromedp.WaitVisible(chromedp.ID("read-only")))
	for sel, want := range map[string]string{"#read-ips": "127.0.0.1/32", "#read-jwt": "journey (ES256); every request must send a JWT", "#read-daily": "800"} {
		if got := text(t, ctx, sel); got != want {
			t.Errorf("the viewer's key page shows %s as %q, want %q", sel, got, want)
		}
	}
	// The key page has no form for a viewer: forge one, with the viewer's
	// own form token (the sign-out form's), as a script could.
	forge := `(() => {
  const f = document.createElement('form');
  f.method = 'post'; f.action = '/dashboard/keys/` + keyID + `';
  for (const [k, v] of Object.entries({csrf: document.querySelector('input[name=csrf]').value, action: 'limits', daily_credits: '100000'})) {
    const i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.appendChild(i);
  }
  document.body.appendChild(f); f.submit(); return true;
})()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](forge)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "the forged POST's answer", chromedp.WaitNotPresent(chromedp.ID("read-only")), chromedp.WaitVisible(chromedp.ID("main")))
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType('navigation')[0].responseStatus`))
	if title, _ := chromedp.Run(ctx, chromedp.Title()); err != nil || status != http.StatusForbidden || !strings.Contains(title, "Not allowed") {
		t.Fatalf("the viewer's forged POST: %d %q (%v), want 403 Not allowed", status, title, err)
	}
	if k, ok := s.Keys.ByID(keyID); !ok || k.DailyCredits() != 800 {
		t.Fatalf("after the viewer's POST the key has %d credits a day, want the owner's 800", k.DailyCredits())
	}
}
