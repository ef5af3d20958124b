package keys

import (
	"encoding/base64"
	"errors"
	"net/netip"
	"strings"
)

// Request is what a transport knows about a request before its body is
// read: the headers the key's settings look at, and the client's address.
type Request struct {
	Authorization string
	Origin        string
	UserAgent     string
	// Remote is the client's address as the ingress decided it (the
	// connection's peer, or what trusted proxies said of it); it is read
	// only for a key with an address allowlist (RestrictsAddresses).
	Remote netip.Addr
}

// Refusals of Admit: ErrBadSecret and a *TokenError answer 401,
// ErrNotAllowed 403.
var (
	ErrBadSecret  = errors.New("invalid API key or secret")
	ErrNotAllowed = errors.New("rejected due to API key settings")
)

// MaxAuthorizationLen bounds the Authorization header nodegate decodes as
// Basic credentials; a longer one is never a valid secret.
const MaxAuthorizationLen = 512

// Admission is what Admit learned of a request it let through.
type Admission struct {
	// Bypass: a correct secret lets the request skip the per-call
	// allowlists too.
	Bypass bool
	// Narrow is what the request's token left of the per-call allowlists
	// (nil: no token, or one that narrows nothing).
	Narrow *Narrowing
}

// Admit applies the request-level settings of the key: the address
// allowlist, the secret or the token, the origin and the user agent
// allowlists.
//
// A key without a secret ignores Basic credentials, and one without public
// keys ignores Bearer ones (a proxy may add its own); a key with one
// refuses wrong credentials of its kind even when they are optional,
// because a client that sends them expects them to be checked.
func (k *Key) Admit(r Request) (Admission, error) {
	sec := &k.security
	if sec.ips != nil && !addrAllowed(sec.ips, r.Remote) {
		return Admission{}, ErrNotAllowed
	}
	var a Admission
	secretOK := false
	if sec.secretHash != nil {
		secret, present := basicSecret(r.Authorization)
		switch {
		case present && !k.secretMatches(secret):
			return Admission{}, ErrBadSecret
		case present:
			secretOK = true
		case sec.secretRequired:
			return Admission{}, ErrBadSecret
		}
	}
	if sec.jwt != nil {
		narrow, err := k.admitToken(r.Authorization)
		if err != nil {
			return Admission{}, err
		}
		a.Narrow = narrow
	}
	if secretOK && sec.secretBypass {
		a.Bypass = true
		return a, nil
	}
	if !k.allowsOrigin(r.Origin) || !a.Narrow.allowsOrigin(r.Origin) || !k.allowsUserAgent(r.UserAgent) {
		return Admission{}, ErrNotAllowed
	}
	return a, nil
}

// admitToken checks a Bearer token against the key's public keys: absent
// is refused only when the key requires one.
func (k *Key) admitToken(auth string) (*Narrowing, error) {
	set := k.security.jwt
	token, present := bearerToken(auth)
	switch {
	case !present && set.required:
		return nil, ErrTokenRequired
	case !present:
		return nil, nil
	case token == "":
		return nil, tokenErrorf("JWT malformed: empty, or Authorization over %d bytes", MaxBearerLen)
	case set.verifier == nil || len(set.keys) == 0:
		return nil, tokenErrorf("JWT cannot be verified: this API key has no public key")
	}
	return set.verifier.check(k, set, token)
}

// RestrictsAddresses reports whether the key has an address allowlist, so
// that the ingress decides the client's address only when it matters.
func (k *Key) RestrictsAddresses() bool { return k.security.ips != nil }

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
