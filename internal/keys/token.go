package keys

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenOptions configure the check of the JSON Web Tokens that keys with
// public keys accept (config jwt:, docs/keys.md).
type TokenOptions struct {
	// Audience is the "aud" a token must name (the service's public URL by
	// default, decided by the service); empty accepts none.
	Audience string
	// MaxLifetime bounds exp-iat (exp-now without iat); 0 means 24h.
	MaxLifetime time.Duration
	// CacheSize bounds the verdicts kept; 0 means 10000.
	CacheSize int
	// Leeway is the clock skew allowed on exp, nbf and iat; 0 means 30s,
	// negative none.
	Leeway time.Duration
}

// Defaults of TokenOptions.
const (
	DefaultTokenLifetime  = 24 * time.Hour
	DefaultTokenCacheSize = 10000
	DefaultTokenLeeway    = 30 * time.Second
	// MaxBearerLen bounds the Authorization header a token is read from.
	MaxBearerLen = 8 << 10
)

func (o TokenOptions) withDefaults() TokenOptions {
	if o.MaxLifetime <= 0 {
		o.MaxLifetime = DefaultTokenLifetime
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultTokenCacheSize
	}
	if o.Leeway == 0 {
		o.Leeway = DefaultTokenLeeway
	} else if o.Leeway < 0 {
		o.Leeway = 0
	}
	return o
}

// TokenError is a refused token; its message is the 401 answer's.
type TokenError struct{ Msg string }

func (e *TokenError) Error() string { return e.Msg }

func tokenErrorf(format string, a ...any) error {
	return &TokenError{Msg: fmt.Sprintf(format, a...)}
}

// ErrTokenRequired is a request without a token to a key that requires one.
var ErrTokenRequired = &TokenError{Msg: "JWT required by this API key: send Authorization: Bearer TOKEN"}

// TokenVerifier checks tokens against a key's public keys and keeps each
// good token's verdict until the token expires, so that a client reusing
// a token pays one map lookup per request. It is made once per process
// (the Cache's) and safe for concurrent use.
type TokenVerifier struct {
	opts TokenOptions
	now  func() time.Time

	mu      sync.RWMutex
	verdict map[string]tokenVerdict // by the token's text
}

// tokenVerdict is a verified token: for which key and which of its sets of
// public keys, valid from nbf until exp (unix seconds), and what it narrows.
type tokenVerdict struct {
	keyID       string
	fingerprint uint64
	nbf, exp    int64
	narrow      *Narrowing
}

// NewTokenVerifier makes the process's token check.
func NewTokenVerifier(o TokenOptions) *TokenVerifier {
	return &TokenVerifier{opts: o.withDefaults(), now: time.Now, verdict: map[string]tokenVerdict{}}
}

// tokenClaims are the claims nodegate reads: the registered ones and the
// allowlists a token may narrow its key's to. A list present (even empty)
// narrows; an absent one leaves the key's as it is.
type tokenClaims struct {
	jwt.RegisteredClaims
	Methods   *[]string `json:"methods,omitempty"`
	Addresses *[]string `json:"addresses,omitempty"`
	Origins   *[]string `json:"origins,omitempty"`
}

// check verifies token for k's public keys, from the cache when it can.
func (v *TokenVerifier) check(k *Key, set *jwtSet, token string) (*Narrowing, error) {
	now := v.now()
	sec := now.Unix()
	v.mu.RLock()
	d, ok := v.verdict[token]
	v.mu.RUnlock()
	if ok && d.keyID == k.ID && d.fingerprint == set.fingerprint && sec < d.exp && sec >= d.nbf {
		return d.narrow, nil
	}
	d, err := v.verify(k.ID, set, token, now)
	if err != nil {
		return nil, err
	}
	v.remember(token, d, sec)
	return d.narrow, nil
}

// verify is the full check: signature by the key kid names, exp (required,
// within MaxLifetime), nbf, iat, aud, and the narrowing claims.
func (v *TokenVerifier) verify(keyID string, set *jwtSet, token string, now time.Time) (tokenVerdict, error) {
	var claims tokenClaims
	p := jwt.NewParser(
		jwt.WithIssuedAt(), jwt.WithLeeway(v.opts.Leeway),
		jwt.WithAudience(v.opts.Audience), jwt.WithTimeFunc(func() time.Time { return now }),
	)
	_, err := p.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		// The algorithm is the public key's, never the token's choice
		// (no "none", no HS256 keyed with the public key).
		if alg := t.Method.Alg(); alg != AlgRS256 && alg != AlgES256 {
			return nil, tokenErrorf("JWT alg %s is not accepted: sign with RS256 or ES256", truncate(alg, 16))
		}
		kid, _ := t.Header["kid"].(string)
		k, err := set.byKID(kid)
		if err != nil {
			return nil, err
		}
		if t.Method.Alg() != k.alg {
			return nil, tokenErrorf("JWT alg %s does not fit public key %q (%s)", t.Method.Alg(), k.name, k.alg)
		}
		return k.pub, nil
	})
	if err != nil {
		return tokenVerdict{}, v.explain(err)
	}
	if claims.ExpiresAt == nil {
		return tokenVerdict{}, tokenErrorf("JWT has no exp claim (required)")
	}
	exp := claims.ExpiresAt.Time
	from := now
	if claims.IssuedAt != nil {
		from = claims.IssuedAt.Time
	}
	if life := exp.Sub(from); life > v.opts.MaxLifetime {
		return tokenVerdict{}, tokenErrorf("JWT lifetime %s is over this service's %s (exp - iat)", life.Round(time.Second), v.opts.MaxLifetime)
	}
	narrow, err := narrowingOf(&claims)
	if err != nil {
		return tokenVerdict{}, err
	}
	d := tokenVerdict{keyID: keyID, fingerprint: set.fingerprint, exp: exp.Unix() + int64(v.opts.Leeway/time.Second), narrow: narrow}
	if claims.NotBefore != nil {
		d.nbf = claims.NotBefore.Unix() - int64(v.opts.Leeway/time.Second)
	}
	return d, nil
}

// explain turns the library's error into the 401 message: what was wrong
// with the token, never the token.
func (v *TokenVerifier) explain(err error) error {
	var (
		te      *TokenError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &te):
		return te
	case errors.As(err, &typeErr):
		return tokenErrorf("JWT claims malformed: %s is not a %s", truncate(typeErr.Field, 32), typeErr.Type)
	case errors.Is(err, jwt.ErrTokenMalformed):
		return tokenErrorf("JWT malformed (want header.payload.signature, base64url)")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return tokenErrorf("JWT signature invalid")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing): // the aud (exp is checked after)
		return tokenErrorf("JWT audience must include %q", v.opts.Audience)
	case errors.Is(err, jwt.ErrTokenExpired):
		return tokenErrorf("JWT expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return tokenErrorf("JWT not valid yet (nbf)")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return tokenErrorf("JWT issued in the future (iat)")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return tokenErrorf("JWT audience must include %q", v.opts.Audience)
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		return tokenErrorf("JWT claims malformed")
	}
	return tokenErrorf("JWT invalid")
}

// remember keeps a verdict, within CacheSize: when full, expired verdicts
// go first, then arbitrary ones, down to three quarters.
func (v *TokenVerifier) remember(token string, d tokenVerdict, now int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.verdict) >= v.opts.CacheSize {
		for t, old := range v.verdict {
			if old.exp <= now {
				delete(v.verdict, t)
			}
		}
		for t := range v.verdict {
			if len(v.verdict) < v.opts.CacheSize*3/4 {
				break
			}
			delete(v.verdict, t)
		}
	}
	v.verdict[token] = d
}

// cached is how many verdicts are kept (tests).
func (v *TokenVerifier) cached() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.verdict)
}

// bearerToken extracts the token of "Bearer <token>"; present is true for
// any Bearer credentials, so that an oversized one counts as bad, not missing.
func bearerToken(h string) (token string, present bool) {
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	if len(h) > MaxBearerLen {
		return "", true
	}
	return strings.TrimSpace(h[len(prefix):]), true
}
