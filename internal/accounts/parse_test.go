package accounts

import (
	"context"
	"strings"
	"testing"
)

func TestNormalizeEmail(t *testing.T) {
	for _, c := range []struct {
		name, in, want, err string
	}{
		{"lower-cased and trimmed", "  Alice@Example.COM ", "alice@example.com", ""},
		{"plus address", "a+b@example.com", "a+b@example.com", ""},
		{"localhost", "dev@localhost", "dev@localhost", ""},
		{"empty", "  ", "", "email: required"},
		{"display name", "Alice <alice@example.com>", "", "email:"},
		{"no domain dot", "alice@example", "", "email: not an address"},
		{"no at", "alice.example.com", "", "email: not an address"},
		{"space inside", "al ice@example.com", "", "email: no spaces"},
		{"control character", "al\x00ice@example.com", "", "email: no spaces"},
		{"too long", strings.Repeat("a", 250) + "@example.com", "", "email: at most"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := NormalizeEmail(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !IsInput(err) {
					t.Fatalf("NormalizeEmail(%q) = %q, %v; want an input error %q", c.in, got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("NormalizeEmail(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

// FuzzNormalizeEmail: never a panic; what is accepted is short, lower
// case, without spaces, and normalises to itself.
func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{"a@b.c", " A@B.C ", "<a@b.c>", "\"a b\"@c.d", "a@@b.c", "a@[127.0.0.1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := NormalizeEmail(s)
		if err != nil {
			return
		}
		if len(e) > MaxEmailLen || e != strings.ToLower(e) || strings.ContainsAny(e, " \t\r\n") {
			t.Fatalf("accepted %q as %q", s, e)
		}
		if again, err := NormalizeEmail(e); err != nil || again != e {
			t.Fatalf("%q does not normalise to itself: %q, %v", e, again, err)
		}
	})
}

func TestPasswordHash(t *testing.T) {
	ctx := context.Background()
	h, err := hashPassword(ctx, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q: want argon2id with the documented parameters", h)
	}
	h2, _ := hashPassword(ctx, "correct horse battery")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		if ok, err := verifyPassword(ctx, h, pw); err != nil || ok != want {
			t.Errorf("verify %q: %v, %v; want %v", pw, ok, err, want)
		}
	}
	if _, err := parseHash(dummyHash); err != nil {
		t.Fatalf("the dummy hash does not parse: %v", err)
	}
	for _, c := range []struct{ name, pw, err string }{
		{"short", "short", "password: at least 10"},
		{"long", strings.Repeat("x", MaxPasswordLen+1), "password: at most"},
		{"not UTF-8", "\xff\xfe long enough", "password: not valid UTF-8"},
	} {
		if err := checkPassword("password", c.pw); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

// FuzzParseHash: a stored hash from a corrupt or planted row never
// panics, and what parses stays within the memory bound.
func FuzzParseHash(f *testing.F) {
	f.Add(dummyHash)
	f.Add("$argon2id$v=19$m=4294967295,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA")
	f.Add("$argon2i$v=19$m=1,t=1,p=1$$")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseHash(s)
		if err != nil {
			return
		}
		if h.memory == 0 || h.memory > maxArgonMemory || h.time == 0 || h.threads == 0 || len(h.sum) < 16 {
			t.Fatalf("accepted %q with %+v", s, h)
		}
	})
}
