package keys

import (
	"encoding/base64"
	"errors"
	"strings"
)

// Request is what a transport knows about a request before its body is
// read: the headers the key's settings look at.
type Request struct {
	Authorization string
	Origin        string
	UserAgent     string
}

// Refusals of Admit: ErrBadSecret answers 401, ErrNotAllowed 403.
var (
	ErrBadSecret  = errors.New("invalid API key or secret")
	ErrNotAllowed = errors.New("rejected due to API key settings")
)

// MaxAuthorizationLen bounds the Authorization header nodegate decodes; a
// longer one is never a valid secret.
const MaxAuthorizationLen = 512

// Admit applies the request-level settings of the key: the secret, the
// origin and the user agent allowlists. bypass reports that a correct
// secret lets the request skip the per-call allowlists too.
//
// A key without a secret ignores Authorization (a proxy may add its own);
// a key with one refuses a wrong Basic secret even when the secret is
// optional, because a client that sends one expects it to be checked.
func (k *Key) Admit(r Request) (bypass bool, err error) {
	sec := &k.security
	secretOK := false
	if sec.secretHash != nil {
		secret, present := basicSecret(r.Authorization)
		switch {
		case present && !k.secretMatches(secret):
			return false, ErrBadSecret
		case present:
			secretOK = true
		case sec.secretRequired:
			return false, ErrBadSecret
		}
	}
	if secretOK && sec.secretBypass {
		return true, nil
	}
	if !k.allowsOrigin(r.Origin) || !k.allowsUserAgent(r.UserAgent) {
		return false, ErrNotAllowed
	}
	return false, nil
}

// basicSecret extracts the password of HTTP Basic auth with an empty user
// (curl --user :SECRET). present is true for any Basic credentials, so that
// a malformed or oversized one counts as a wrong secret, not a missing one.
func basicSecret(h string) (secret string, present bool) {
	const prefix = "basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	if len(h) > MaxAuthorizationLen {
		return "", true
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[len(prefix):]))
	if err != nil {
		return "", true
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok || user != "" || pass == "" {
		return "", true
	}
	return pass, true
}
