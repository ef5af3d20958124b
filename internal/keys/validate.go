package keys

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nodegate/nodegate/internal/ident"
	"github.com/nodegate/nodegate/internal/methods"
)

// InputError is a refused management input (bad plan, bad allowlist
// entry): the CLI exits 2 with its message, the admin API answers 400.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, a ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, a...)}
}

// IsInputError reports whether err is a refused input.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

const (
	maxNameLen      = 100
	maxUserAgentLen = 256
	maxNetworks     = 30
)

// normalizeSecurity validates every allowlist entry and puts it in its
// canonical form (lowercase addresses and origins, no duplicates).
func normalizeSecurity(s *Security) error {
	if s.SecretRequired && s.SecretHash == nil {
		return inputErrorf("secret_required needs a secret: create one with --new-secret (CLI) or \"new_secret\": true (API)")
	}
	if s.SecretBypassesAllowlists && s.SecretHash == nil {
		return inputErrorf("secret_bypasses_allowlists needs a secret: create one with --new-secret (CLI) or \"new_secret\": true (API)")
	}
	if s.JWTRequired && len(s.JWTKeys) == 0 {
		return inputErrorf("jwt_required needs a public key: add one with --jwt-key NAME=FILE.pem (CLI) or \"jwt_keys\": {\"NAME\": \"PEM\"} (API)")
	}
	if s.JWTRequired && s.SecretRequired {
		return inputErrorf("jwt_required and secret_required cannot both be set: a request carries one Authorization header (Bearer or Basic)")
	}
	var err error
	if s.IPs, err = normalizeList("allowed ips", s.IPs, func(e string) (string, error) {
		p, err := ParsePrefix(e)
		if err != nil {
			return "", err
		}
		return p.String(), nil
	}); err != nil {
		return err
	}
	if s.Methods, err = normalizeList("allowed methods", s.Methods, func(m string) (string, error) {
		if !methods.ValidName(m) {
			return "", errors.New("not a JSON-RPC method name (letters, digits and _; at most 128)")
		}
		return m, nil
	}); err != nil {
		return err
	}
	if s.Contracts, err = normalizeList("allowed contracts", s.Contracts, func(a string) (string, error) {
		if _, err := parseAddress(a); err != nil {
			return "", err
		}
		return strings.ToLower(a), nil
	}); err != nil {
		return err
	}
	if s.Origins, err = normalizeList("allowed origins", s.Origins, func(o string) (string, error) {
		if _, err := parseOriginPattern(o); err != nil {
			return "", err
		}
		return strings.ToLower(o), nil
	}); err != nil {
		return err
	}
	s.UserAgents, err = normalizeList("allowed user agents", s.UserAgents, func(ua string) (string, error) {
		if len(ua) > maxUserAgentLen || !utf8.ValidString(ua) || strings.ContainsAny(ua, "\r\n\x00") {
			return "", fmt.Errorf("a user agent entry is at most %d bytes of printable UTF-8", maxUserAgentLen)
		}
		return ua, nil
	})
	return err
}

// normalizeList checks the size of a list and each entry, dropping
// duplicates; an empty entry is refused (it would match everything).
func normalizeList(what string, in []string, canon func(string) (string, error)) ([]string, error) {
	if len(in) > MaxAllowlist {
		return nil, inputErrorf("%s: at most %d entries, got %d", what, MaxAllowlist, len(in))
	}
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, e := range in {
		if e == "" {
			return nil, inputErrorf("%s: empty entry", what)
		}
		c, err := canon(e)
		if err != nil {
			return nil, inputErrorf("%s: %q: %v", what, e, err)
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func normalizeNetworks(in []string) ([]string, error) {
	if len(in) > maxNetworks {
		return nil, inputErrorf("networks: at most %d entries, got %d", maxNetworks, len(in))
	}
	return normalizeList("networks", in, func(n string) (string, error) {
		if !ident.ValidIdentifier(n) {
			return "", errors.New("a network name is 1 to 64 lowercase letters, digits, - and _")
		}
		return n, nil
	})
}

// validateName refuses a name that could print as something else: control
// characters (C0, C1, DEL) and the bidirectional controls (embeddings,
// overrides, isolates and marks, which reorder what follows them, so that
// "app\u202Egpj.exe" shows as "appexe.jpg").
func validateName(n string) error {
	if len(n) > maxNameLen || !utf8.ValidString(n) {
		return inputErrorf("name: at most %d bytes of printable UTF-8", maxNameLen)
	}
	for _, r := range n {
		if unicode.IsControl(r) || isBidiControl(r) {
			return inputErrorf("name: no control or bidirectional-control characters (found U+%04X)", r)
		}
	}
	return nil
}

// isBidiControl is a Unicode bidirectional control: U+061C, U+200E-U+200F,
// U+202A-U+202E, U+2066-U+2069.
func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// ValidateName is validateName for other names shown on pages (API
// tokens): the same rule, in one place.
func ValidateName(n string) error { return validateName(n) }
