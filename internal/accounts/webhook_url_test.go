package accounts

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckWebhookURL: only https URLs with a host, no user info and no
// fragment, of bounded length; "" means none.
func TestCheckWebhookURL(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"none", "", "", true},
		{"https", "https://hooks.example.com/nodegate", "https://hooks.example.com/nodegate", true},
		{"trimmed", "  https://hooks.example.com/x ", "https://hooks.example.com/x", true},
		{"with port and query", "https://hooks.example.com:8443/x?k=v", "https://hooks.example.com:8443/x?k=v", true},
		{"plain http", "http://hooks.example.com/x", "", false},
		{"no host", "https:///x", "", false},
		{"user info", "https://u:p@hooks.example.com/x", "", false},
		{"fragment", "https://hooks.example.com/x#f", "", false},
		{"not a URL", "hooks", "", false},
		{"too long", "https://hooks.example.com/" + strings.Repeat("a", maxWebhookURL), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := checkWebhookURL(tc.in)
			if (err == nil) != tc.ok || got != tc.want || (err != nil && !IsInput(err)) {
				t.Fatalf("checkWebhookURL(%q) = %q, %v", tc.in, got, err)
			}
		})
	}
}

// FuzzCheckWebhookURL: any input is refused with input error or accepted
// as an https URL, never a panic.
func FuzzCheckWebhookURL(f *testing.F) {
	f.Add("https://hooks.example.com/x")
	f.Add("http://[::1]:80/")
	f.Add("https://%zz")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := checkWebhookURL(in)
		if err != nil && !IsInput(err) {
			t.Fatalf("%q: not an input error: %v", in, err)
		}
		if err == nil && got != "" && !strings.HasPrefix(got, "https://") {
			t.Fatalf("%q accepted as %q", in, got)
		}
	})
}

// TestWebhookDialGuard: by default the webhook client dials public
// addresses only; accounts.webhook_private_targets opens exactly the
// networks it lists.
func TestWebhookDialGuard(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		name, addr string
		private    []netip.Prefix
		ok         bool
	}{
		{"public v4", "93.184.216.34:443", nil, true},
		{"public v6", "[2606:2800:220:1:248:1893:25c8:1946]:443", nil, true},
		{"loopback", "127.0.0.1:443", nil, false},
		{"loopback v6", "[::1]:443", nil, false},
		{"private 10/8", "10.1.2.3:443", nil, false},
		{"private 192.168/16", "192.168.0.1:443", nil, false},
		{"cloud metadata", "169.254.169.254:80", nil, false},
		{"link-local v6", "[fe80::1]:443", nil, false},
		{"unspecified", "0.0.0.0:443", nil, false},
		{"v4-mapped loopback", "[::ffff:127.0.0.1]:443", nil, false},
		{"multicast", "224.0.0.1:443", nil, false},
		{"allowed loopback", "127.0.0.1:443", loopback, true},
		{"allowed second loopback", "127.0.0.2:443", loopback, true},
		{"allowed v4-mapped loopback", "[::ffff:127.0.0.1]:443", loopback, true},
		{"allowed ula", "[fd12::1]:443", loopback, true},
		{"private outside the list", "10.1.2.3:443", loopback, false},
		{"v6 loopback outside the list", "[::1]:443", loopback, false},
		{"metadata outside the list", "169.254.169.254:80", loopback, false},
		{"public with a list", "93.184.216.34:443", loopback, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := (dialGuard{private: tc.private}).control("tcp", tc.addr, nil); (err == nil) != tc.ok {
				t.Fatalf("control(%s) = %v, want ok=%v", tc.addr, err, tc.ok)
			}
		})
	}
}

// TestWebhookCAFile: a CA file without a certificate, or missing, stops
// the accounts from starting, naming the setting.
func TestWebhookCAFile(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.pem")
	if err := os.WriteFile(empty, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{"no certificate": empty, "missing": filepath.Join(t.TempDir(), "none.pem")} {
		t.Run(name, func(t *testing.T) {
			if _, err := webhookClient(nil, file); err == nil || !strings.Contains(err.Error(), "accounts.webhook_ca_file") {
				t.Fatalf("webhookClient with %s: %v", file, err)
			}
		})
	}
}
