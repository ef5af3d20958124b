package accounts

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestVerifySignature: a signature made by Sign verifies; a changed body,
// another secret, an old or future timestamp and malformed headers are
// refused with their own error.
func TestVerifySignature(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"threshold":75}`)
	good := Sign("whsec", now, body)
	for _, tc := range []struct {
		name, secret, header string
		body                 []byte
		at                   time.Time
		want                 error
	}{
		{"as signed", "whsec", good, body, now, nil},
		{"a minute later", "whsec", good, body, now.Add(time.Minute), nil},
		{"body changed", "whsec", good, []byte(`{"threshold":76}`), now, ErrSignatureMismatch},
		{"another secret", "other", good, body, now, ErrSignatureMismatch},
		{"replayed late", "whsec", good, body, now.Add(10 * time.Minute), ErrSignatureStale},
		{"from the future", "whsec", good, body, now.Add(-10 * time.Minute), ErrSignatureStale},
		{"second v1 matches", "whsec", good + ",v1=" + strings.Repeat("00", 32), body, now, nil},
		{"empty", "whsec", "", body, now, ErrSignatureMalformed},
		{"no v1", "whsec", "t=1800000000", body, now, ErrSignatureMalformed},
		{"short v1", "whsec", "t=1800000000,v1=abcd", body, now, ErrSignatureMalformed},
		{"bad t", "whsec", "t=soon,v1=" + strings.Repeat("00", 32), body, now, ErrSignatureMalformed},
		{"too long", "whsec", good + strings.Repeat(",x=y", 200), body, now, ErrSignatureMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifySignature(tc.secret, tc.header, tc.body, tc.at, 5*time.Minute)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("VerifySignature = %v, want %v", err, tc.want)
			}
		})
	}
}

// FuzzVerifySignature: any header is refused or verified, never a panic;
// a body other than the signed one never verifies.
func FuzzVerifySignature(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	f.Add(Sign("s", now, []byte("b")), []byte("b"))
	f.Add("t=1,v1=zz", []byte(""))
	f.Add(",,,=,", []byte("x"))
	signed := Sign("s", now, []byte("the signed body"))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		_ = VerifySignature("s", header, body, now, time.Hour)
		if string(body) != "the signed body" && VerifySignature("s", signed, body, now, time.Hour) == nil {
			t.Fatalf("the signature of another body verifies %q", body)
		}
	})
}
