package ident

import (
	"strings"
	"testing"
)

func TestParsePrefix(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, wantErr string
	}{
		{"v4 address is a /32", "192.0.2.7", "192.0.2.7/32", ""},
		{"v4 /32", "192.0.2.7/32", "192.0.2.7/32", ""},
		{"v4 /0", "0.0.0.0/0", "0.0.0.0/0", ""},
		{"v4 host bits cleared", "10.1.2.3/8", "10.0.0.0/8", ""},
		{"v6 address is a /128", "2001:db8::1", "2001:db8::1/128", ""},
		{"v6 /128", "2001:DB8::1/128", "2001:db8::1/128", ""},
		{"v6 /0", "::/0", "::/0", ""},
		{"v6 host bits cleared", "2001:db8::1/32", "2001:db8::/32", ""},
		{"v4-mapped address is its v4 form", "::ffff:192.0.2.7", "192.0.2.7/32", ""},
		{"v4-mapped /128 is a v4 /32", "::ffff:192.0.2.7/128", "192.0.2.7/32", ""},
		{"v4-mapped /120 is a v4 /24", "::ffff:192.0.2.0/120", "192.0.2.0/24", ""},
		{"v4-mapped /96 is v4 /0", "::ffff:0.0.0.0/96", "0.0.0.0/0", ""},
		{"v4-mapped shorter than /96", "::ffff:0.0.0.0/95", "", "/96 or longer"},
		{"zone", "fe80::1%eth0", "", "zone"},
		{"empty", "", "", "1 to 64"},
		{"too long", strings.Repeat("1", 65), "", "1 to 64"},
		{"bits over 32", "192.0.2.0/33", "", "not an IP address or CIDR"},
		{"name", "example.com", "", "not an IP address or CIDR"},
		{"leading zeros", "010.0.0.1", "", "not an IP address or CIDR"},
		{"space", " 192.0.2.1", "", "not an IP address or CIDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePrefix(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParsePrefix(%q) = %v, %v; want an error with %q", tc.in, p, err, tc.wantErr)
				}
				return
			}
			if err != nil || p.String() != tc.want {
				t.Fatalf("ParsePrefix(%q) = %v, %v; want %s", tc.in, p, err, tc.want)
			}
		})
	}
}

// FuzzParsePrefix: never a panic; what it accepts is canonical (parsing
// its own output gives it back), unmapped, and without a zone.
func FuzzParsePrefix(f *testing.F) {
	for _, s := range []string{"192.0.2.1", "10.0.0.0/8", "::/0", "::ffff:1.2.3.4/120", "fe80::1%lo", "2001:db8::/129", "1.2.3.4/-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrefix(s)
		if err != nil {
			return
		}
		if p.Addr().Is4In6() || p.Addr().Zone() != "" || p != p.Masked() {
			t.Fatalf("ParsePrefix(%q) = %v: not canonical", s, p)
		}
		again, err := ParsePrefix(p.String())
		if err != nil || again != p {
			t.Fatalf("ParsePrefix(%q) = %v, but its own form parses as %v, %v", s, p, again, err)
		}
	})
}
