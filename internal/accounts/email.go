package accounts

import (
	"net/mail"
	"strings"
)

// MaxEmailLen is the longest email accepted (RFC 5321's path limit).
const MaxEmailLen = 254

// NormalizeEmail is the login form of an email: trimmed, lower case, a
// bare address (no display name), at most MaxEmailLen bytes.
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if e == "" {
		return "", inputf("email: required")
	}
	if len(e) > MaxEmailLen {
		return "", inputf("email: at most %d characters", MaxEmailLen)
	}
	for _, r := range e {
		if r < 0x21 || r == 0x7f {
			return "", inputf("email: no spaces or control characters")
		}
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") && !strings.HasSuffix(e, "@localhost") {
		return "", inputf("email: not an address like name@example.com")
	}
	return e, nil
}
