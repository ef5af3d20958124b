package customer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/nodegate/nodegate/internal/service"
)

// layoutCheck is what a page's layout says at one width: its width
// against the window's, the form controls no label names, and whether the
// header's account line is cut.
type layoutCheck struct {
	ScrollWidth int      `json:"scroll"`
	InnerWidth  int      `json:"inner"`
	Unlabeled   []string `json:"unlabeled"`
	WhoCut      bool     `json:"whoCut"`
}

const layoutJS = `(() => {
  const who = document.getElementById('who');
  const named = e => (e.labels && e.labels.length > 0) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby');
  return {
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    unlabeled: [...document.querySelectorAll('input:not([type=hidden]), textarea, select')].filter(e => !named(e)).map(e => e.name || e.id || e.type),
    whoCut: !!who && (who.getBoundingClientRect().right > window.innerWidth || who.scrollWidth > who.clientWidth + 1),
  };
})()`

// checkLayout fails the test when the current page scrolls sideways at
// this width, has a control without a label, or cuts the header.
func checkLayout(t *testing.T, ctx context.Context, width int, page string) {
	t.Helper()
	c, err := chromedp.Run(ctx, chromedp.Evaluate[layoutCheck](layoutJS))
	if err != nil {
		t.Fatalf("%s at %d px: %v", page, width, err)
	}
	if c.ScrollWidth > c.InnerWidth {
		t.Errorf("%s at %d px scrolls sideways: the document is %d px wide in a %d px window", page, width, c.ScrollWidth, c.InnerWidth)
	}
	if len(c.Unlabeled) > 0 {
		t.Errorf("%s: controls without a label: %v", page, c.Unlabeled)
	}
	if c.WhoCut {
		t.Errorf("%s at %d px: the header's account line is cut", page, width)
	}
}

// docShots are the screenshots docs/dashboard.md shows, per width.
var docShots = map[int][]string{390: {"keys", "created", "key", "revoke", "usage", "plan", "members", "alerts", "analytics"}, 1280: {"key", "revoke", "audit", "tokens", "analytics"}}

// widthShot saves the screenshot of the page at this width when
// docs/dashboard.md shows it.
func widthShot(t *testing.T, ctx context.Context, width int, name string) {
	for _, n := range docShots[width] {
		if n == name {
			shot(t, ctx, fmt.Sprintf("%s-%d", name, width))
		}
	}
}

// visitPage opens a page, checks its layout and saves its screenshot.
func visitPage(t *testing.T, ctx context.Context, width int, url, name string) {
	t.Helper()
	do(t, ctx, "open "+name, chromedp.Navigate(url))
	checkLayout(t, ctx, width, name)
	widthShot(t, ctx, width, name)
}

// has reports whether the current page has an element matching sel.
func has(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(`+"`"+sel+"`"+`) !== null`))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestBrowserPhoneAndDesktop: at 390 px (a phone) and 1280 px every page
// fits its window (no sideways scroll), names every control, and shows
// the header's account line whole; a reload of the new key's page or of
// the page that shows a new secret makes no second key nor secret and
// shows neither again; revoking asks first.
func TestBrowserPhoneAndDesktop(t *testing.T) {
	ctx := chrome(t)
	s := start(t, nil)
	for _, width := range []int{390, 1280} {
		t.Run(fmt.Sprint(width), func(t *testing.T) { phoneAndDesktop(t, ctx, s, width) })
	}
}

func phoneAndDesktop(t *testing.T, ctx context.Context, s *service.Service, width int) {
	base := s.URL() + "/dashboard"
	do(t, ctx, "set the window", chromedp.EmulateViewport(int64(width), 900))
	visitPage(t, ctx, width, base+"/signin", "signin")
	visitPage(t, ctx, width, base+"/signup", "signup")
	email := fmt.Sprintf("a-rather-long-address-for-a-phone-%d@customer-of-example.com", width)
	do(t, ctx, "sign up",
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), "a long enough password"),
		chromedp.SendKeys(chromedp.ID("password2"), "a long enough password"),
		chromedp.Click(chromedp.ID("signup")),
		chromedp.WaitVisible(chromedp.ID("create-form")),
	)
	checkLayout(t, ctx, width, "keys (empty)")
	do(t, ctx, "make a key with a secret",
		chromedp.SendKeys(chromedp.ID("key-name"), "a key with a fairly long name for a small screen"),
		chromedp.Click(chromedp.CSS(`input[name=secret]`)),
		chromedp.Click(chromedp.ID("create")),
		chromedp.WaitVisible(chromedp.ID("new-secret")),
	)
	checkLayout(t, ctx, width, "created")
	widthShot(t, ctx, width, "created")
	keyID := text(t, ctx, "#new-key-id")
	plain := text(t, ctx, "#new-key")
	for _, m := range []string{"eth_blockNumber", "eth_blockNumber", "eth_chainId", "eth_getBalance", "eth_noSuchMethod"} {
		rpc(t, s.URL()+"/v3/"+plain, m) // for the analytics page
	}
	do(t, ctx, "reload the new key's page", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("key-id")))
	if has(t, ctx, "#new-key") || has(t, ctx, "#new-secret") {
		t.Fatal("a reload of the new key's page shows the key or its secret again")
	}
	visitPage(t, ctx, width, base+"/keys", "keys")
	if n := strings.Count(text(t, ctx, "#keys tbody"), "fairly long name"); n != 1 {
		t.Fatalf("after a reload the keys page lists %d keys, want 1", n)
	}

	visitPage(t, ctx, width, base+"/keys/"+keyID, "key")
	do(t, ctx, "make a new secret",
		chromedp.Click(chromedp.CSS(`form input[value=new-secret] ~ button`)),
		chromedp.WaitVisible(chromedp.ID("new-secret")),
	)
	secret := text(t, ctx, "#new-secret")
	do(t, ctx, "reload after the new secret", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("key-id")))
	if has(t, ctx, "#new-secret") || strings.Contains(text(t, ctx, "main"), secret) {
		t.Fatal("a reload shows the new secret again")
	}

	visitPage(t, ctx, width, base+"/keys/"+keyID+"/usage", "usage")
	visitPage(t, ctx, width, base+"/usage", "account-usage")
	visitPage(t, ctx, width, base+"/keys/"+keyID+"/analytics?period=24h", "key-analytics")
	eventually(t, "the analytics page shows the calls", func() bool {
		do(t, ctx, "open analytics", chromedp.Navigate(base+"/analytics"))
		return has(t, ctx, "#latency")
	})
	visitPage(t, ctx, width, base+"/analytics", "analytics")
	visitPage(t, ctx, width, base+"/plan", "plan")
	visitPage(t, ctx, width, base+"/password", "password")
	visitPage(t, ctx, width, base+"/members", "members")
	visitPage(t, ctx, width, base+"/audit", "audit")
	visitPage(t, ctx, width, base+"/alerts", "alerts")
	visitPage(t, ctx, width, base+"/tokens", "tokens")
	visitPage(t, ctx, width, base+"/keys/"+keyID, "key-settings")
	do(t, ctx, "ask to revoke", chromedp.Click(chromedp.ID("revoke")), chromedp.WaitVisible(chromedp.ID("confirm-revoke")))
	checkLayout(t, ctx, width, "revoke")
	widthShot(t, ctx, width, "revoke")
	if st, err := chromedp.Run(ctx, chromedp.Title()); err != nil || !strings.Contains(st, "Revoke") {
		t.Fatalf("the revoke button led to %q, not the question", st)
	}
	do(t, ctx, "keep the key", chromedp.Click(chromedp.ID("cancel-revoke")), chromedp.WaitVisible(chromedp.ID("key-status")))
	if st := text(t, ctx, "#key-status"); st != "active" {
		t.Fatalf("after answering no, the key is %q", st)
	}
	do(t, ctx, "revoke", chromedp.Navigate(base+"/keys/"+keyID+"/revoke"), chromedp.Click(chromedp.ID("confirm-revoke")), chromedp.WaitVisible(chromedp.ID("notice")))
	if st := text(t, ctx, "#key-status"); st != "revoked" {
		t.Fatalf("after confirming, the key is %q", st)
	}
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".signout button")), chromedp.WaitVisible(chromedp.ID("signin-form")))
}
