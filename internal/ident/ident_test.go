package ident

import (
	"strings"
	"testing"
)

func TestValidKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want bool
	}{
		{"32 lowercase hex", strings.Repeat("0123456789abcdef", 2), true},
		{"empty", "", false},
		{"31 characters", strings.Repeat("a", 31), false},
		{"33 characters", strings.Repeat("a", 33), false},
		{"uppercase hex", strings.Repeat("A", 32), false},
		{"not hex", strings.Repeat("g", 32), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidKey(tc.in); got != tc.want {
				t.Fatalf("ValidKey(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestValidIdentifier(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want bool
	}{
		{"plain", "team", true},
		{"digits, - and _", "mainnet-2_b", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"empty", "", false},
		{"65 characters", strings.Repeat("a", 65), false},
		{"uppercase", "Team", false},
		{"space", "my plan", false},
		{"dot", "a.b", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidIdentifier(tc.in); got != tc.want {
				t.Fatalf("ValidIdentifier(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzValidIdentifier(f *testing.F) {
	for _, s := range []string{"team", "", "A", strings.Repeat("z", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidIdentifier(s) && (s == "" || len(s) > 64 || strings.ToLower(s) != s || strings.ContainsAny(s, " ./\x00")) {
			t.Fatalf("accepted %q", s)
		}
		if ValidKey(s) && !ValidIdentifier(s) {
			t.Fatalf("a key %q is not an identifier", s)
		}
	})
}
