package customer

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// sealFlash seals f for a session and page as setFlash does, returning
// the cookie's value.
func sealFlash(t *testing.T, session, target string, f flash) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h := &Handler{}
	if err := h.setFlash(rec, httptest.NewRequest("POST", "/dashboard/keys", nil), &visit{token: session}, target, f); err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == flashCookie {
			return c.Value
		}
	}
	t.Fatal("setFlash set no cookie")
	return ""
}

// TestFlashOpensOnlyForItsSessionAndPage: a flash opens for the session
// and page it was sealed for, and for nothing else (another session,
// another key's page, a changed byte, garbage).
func TestFlashOpensOnlyForItsSessionAndPage(t *testing.T) {
	want := flash{Key: strings.Repeat("a", 32), Secret: "s3cret"}
	sealed := sealFlash(t, "session-one", "/dashboard/keys/k1/created", want)
	flipped := []byte(sealed)
	flipped[len(flipped)/2] ^= 1
	for _, tc := range []struct {
		name, session, target, value string
		ok                           bool
	}{
		{"its session and page", "session-one", "/dashboard/keys/k1/created", sealed, true},
		{"another session", "session-two", "/dashboard/keys/k1/created", sealed, false},
		{"another key's page", "session-one", "/dashboard/keys/k2/created", sealed, false},
		{"a byte changed", "session-one", "/dashboard/keys/k1/created", string(flipped), false},
		{"not base64", "session-one", "/dashboard/keys/k1/created", "%%%", false},
		{"too short", "session-one", "/dashboard/keys/k1/created", "AAAA", false},
		{"too long", "session-one", "/dashboard/keys/k1/created", strings.Repeat("A", maxFlash+1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := openFlash(tc.session, tc.target, tc.value)
			if ok != tc.ok || (ok && got != want) {
				t.Fatalf("openFlash = %+v, %v; want ok=%v", got, ok, tc.ok)
			}
		})
	}
}

// FuzzOpenFlash: any cookie value opens to nothing or to a flash, never
// a panic; a sealed one opens to what was sealed.
func FuzzOpenFlash(f *testing.F) {
	f.Add(sealFlashF(f, flash{Key: "k", Secret: "s"}))
	f.Add("")
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, value string) {
		_, _ = openFlash("fuzz-session", "/dashboard/keys/k/created", value)
	})
}

func sealFlashF(f *testing.F, fl flash) string {
	rec := httptest.NewRecorder()
	if err := (&Handler{}).setFlash(rec, httptest.NewRequest("POST", "/", nil), &visit{token: "fuzz-session"}, "/dashboard/keys/k/created", fl); err != nil {
		f.Fatal(err)
	}
	return rec.Result().Cookies()[0].Value
}
