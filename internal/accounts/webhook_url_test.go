package accounts

import (
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

// TestPublicOnly: the default webhook client dials public addresses only.
func TestPublicOnly(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34:443", true},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", true},
		{"127.0.0.1:443", false},
		{"[::1]:443", false},
		{"10.1.2.3:443", false},
		{"192.168.0.1:443", false},
		{"169.254.169.254:80", false},
		{"[fe80::1]:443", false},
		{"0.0.0.0:443", false},
		{"[::ffff:127.0.0.1]:443", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if err := publicOnly("tcp", tc.addr, nil); (err == nil) != tc.ok {
				t.Fatalf("publicOnly(%s) = %v, want ok=%v", tc.addr, err, tc.ok)
			}
		})
	}
}
