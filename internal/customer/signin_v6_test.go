package customer_test

import (
	"net/http"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestSignInLimitGroupsIPv6By64: the sign-in limit per address counts
// every address of one IPv6 /64 as one (one host has a whole /64): after
// 30 failures from one address of 2001:db8:1:2::/64 (on emails no account
// has, so that only the address's limit fills), another address of that
// /64 is refused (429) and an address of another /64 is not. A trusted
// proxy (this machine, trusted_proxies 127.0.0.1/32) presents the
// addresses by X-Forwarded-For.
func TestSignInLimitGroupsIPv6By64(t *testing.T) {
	s := start(t, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1/32"} })
	from := func(client string) *browser {
		b := newBrowser(t, s.URL())
		viaProxy(b, client, 0)
		return b
	}
	if code, body := failSignIns(from("2001:db8:1:2::1"), 30); code != http.StatusUnauthorized {
		t.Fatalf("the 30th failure from 2001:db8:1:2::1: %d, want 401 within the limit\n%s", code, body)
	}
	if code, _ := failSignIns(from("2001:db8:1:2:ffff:ffff:ffff:ffff"), 1); code != http.StatusTooManyRequests {
		t.Errorf("another address of the same /64 after its 30 failures: %d, want 429", code)
	}
	if code, _ := failSignIns(from("2001:db8:1:3::1"), 1); code != http.StatusUnauthorized {
		t.Errorf("an address of another /64: %d, want 401 (a limit of its own)", code)
	}
}
