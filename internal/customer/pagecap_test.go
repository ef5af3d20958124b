package customer

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
)

// TestPageCapFloodEvicts: once the table is full, a new address is
// counted in place of the least recently seen one (not refused), and a
// flood of addresses never refuses a signed-in account.
func TestPageCapFloodEvicts(t *testing.T) {
	const size = 1000
	c := newPageCapOf(5, size)
	now := time.Unix(1_700_000_000, 0)
	if !c.allow("acct_customer", true, now) {
		t.Fatal("the account's first request refused")
	}
	a := netip.MustParseAddr("10.0.0.0")
	for i := range 3 * size {
		a = a.Next()
		if !c.allow(accounts.AddressSubject(a.String()), false, now) {
			t.Fatalf("flood address %d (%s) refused: a full table must evict, not refuse", i, a)
		}
	}
	if !c.allow(accounts.AddressSubject("192.0.2.7"), false, now) {
		t.Error("a new visitor after the flood refused")
	}
	if !c.allow("acct_customer", true, now) {
		t.Error("a signed-in account refused after a flood of addresses")
	}
}

// TestPageCapGroupsIPv6By64: every address of one IPv6 /64 shares one
// count; another /64 has its own.
func TestPageCapGroupsIPv6By64(t *testing.T) {
	c := newPageCapOf(5, 100)
	now := time.Unix(1_700_000_000, 0)
	for i := range 5 {
		if !c.allow(accounts.AddressSubject(fmt.Sprintf("2001:db8:1:2::%x", i+1)), false, now) {
			t.Fatalf("request %d of the /64 refused under the cap", i)
		}
	}
	if c.allow(accounts.AddressSubject("2001:db8:1:2:ffff::9"), false, now) {
		t.Error("a sixth address of the same /64 was not counted with the others")
	}
	if !c.allow(accounts.AddressSubject("2001:db8:1:3::1"), false, now) {
		t.Error("another /64 refused")
	}
}
