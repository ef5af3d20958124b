package keys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// JWTKey is one public key a key's JSON Web Tokens may be signed with:
// a name (the token's "kid" selects it), the algorithm its type implies
// (RS256 for RSA, ES256 for P-256) and the PEM as uploaded.
type JWTKey struct {
	Name string `json:"name"`
	Alg  string `json:"alg"`
	PEM  string `json:"pem"`
}

// Bounds of a key's JWT public keys.
const (
	// MaxJWTKeys is how many public keys one API key may hold.
	MaxJWTKeys = 3
	// maxPEMLen bounds one uploaded PEM (an RSA-8192 public key is ~1.5 KB).
	maxPEMLen     = 8 << 10
	maxJWTKeyName = 64
	minRSABits    = 2048
	maxRSABits    = 8192
)

// The algorithms a JWT public key implies.
const (
	AlgRS256 = "RS256"
	AlgES256 = "ES256"
)

var (
	errNoPEM       = errors.New("no PEM block (want -----BEGIN PUBLIC KEY-----)")
	errPEMTrailing = errors.New("text after the PEM block (one public key per name)")
)

// ParsePublicKeyPEM reads one PEM public key ("PUBLIC KEY", PKIX, or
// "RSA PUBLIC KEY", PKCS #1) and says which algorithm it verifies: RS256
// for an RSA key of 2048 to 8192 bits, ES256 for a P-256 key. Anything
// else (a private key, a certificate, another curve) is refused.
func ParsePublicKeyPEM(s string) (crypto.PublicKey, string, error) {
	if len(s) > maxPEMLen {
		return nil, "", fmt.Errorf("a PEM public key is at most %d bytes, got %d", maxPEMLen, len(s))
	}
	block, rest := pem.Decode([]byte(strings.TrimSpace(s)))
	if block == nil {
		return nil, "", errNoPEM
	}
	if strings.TrimSpace(string(rest)) != "" {
		return nil, "", errPEMTrailing
	}
	var (
		pub any
		err error
	)
	switch block.Type {
	case "PUBLIC KEY":
		pub, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
	default:
		return nil, "", fmt.Errorf("a %q PEM block is not a public key (want PUBLIC KEY)", block.Type)
	}
	if err != nil {
		return nil, "", fmt.Errorf("read the public key: %w", err)
	}
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if n := k.N.BitLen(); n < minRSABits || n > maxRSABits {
			return nil, "", fmt.Errorf("an RSA key for RS256 has %d to %d bits, got %d", minRSABits, maxRSABits, n)
		}
		return k, AlgRS256, nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, "", fmt.Errorf("an EC key for ES256 is on P-256, got %s", k.Curve.Params().Name)
		}
		return k, AlgES256, nil
	default:
		return nil, "", fmt.Errorf("a %T key is neither RSA (RS256) nor P-256 (ES256)", pub)
	}
}

// validJWTKeyName: 1 to 64 letters, digits, '.', '_' and '-' (a token's kid).
func validJWTKeyName(n string) bool {
	if n == "" || len(n) > maxJWTKeyName {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// applyJWTKeys sets (a PEM) or removes ("") the named public keys of s,
// checking each PEM and the count; the result is sorted by name.
func applyJWTKeys(s *Security, change map[string]string) error {
	byName := make(map[string]JWTKey, len(s.JWTKeys)+len(change))
	for _, k := range s.JWTKeys {
		byName[k.Name] = k
	}
	for name, p := range change {
		if !validJWTKeyName(name) {
			return inputErrorf("jwt_keys: %q: a name is 1 to %d letters, digits, '.', '_' or '-' (the token's kid)", name, maxJWTKeyName)
		}
		if p == "" {
			delete(byName, name)
			continue
		}
		_, alg, err := ParsePublicKeyPEM(p)
		if err != nil {
			return inputErrorf("jwt_keys: %q: %v", name, err)
		}
		byName[name] = JWTKey{Name: name, Alg: alg, PEM: strings.TrimSpace(p) + "\n"}
	}
	if len(byName) > MaxJWTKeys {
		return inputErrorf("jwt_keys: at most %d public keys per API key, got %d", MaxJWTKeys, len(byName))
	}
	out := make([]JWTKey, 0, len(byName))
	for _, k := range byName {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	s.JWTKeys = out
	return nil
}

// jwtSet is a key's public keys prepared for the token check, with a
// fingerprint of the whole set so that a verdict cached for one set is
// never used for another (a key uploaded or removed since).
type jwtSet struct {
	keys        []jwtPublicKey
	required    bool
	fingerprint uint64
	// verifier is the process's token check (the Cache's); nil refuses
	// every token (a key compiled outside a Cache).
	verifier *TokenVerifier
}

type jwtPublicKey struct {
	name string
	alg  string
	pub  crypto.PublicKey
}

// compileJWT parses the stored keys; nil when the key has none and does
// not require a token, so that such a key pays nothing.
func compileJWT(s *Security) *jwtSet {
	if len(s.JWTKeys) == 0 && !s.JWTRequired {
		return nil
	}
	set := &jwtSet{required: s.JWTRequired}
	h := sha256.New()
	for _, k := range s.JWTKeys {
		pub, alg, err := ParsePublicKeyPEM(k.PEM)
		if err != nil {
			continue // validated on the way in; a bad one simply never verifies
		}
		set.keys = append(set.keys, jwtPublicKey{name: k.Name, alg: alg, pub: pub})
		h.Write([]byte(k.Name))
		h.Write([]byte{0})
		h.Write([]byte(k.PEM))
		h.Write([]byte{0})
	}
	set.fingerprint = binary.BigEndian.Uint64(h.Sum(nil))
	return set
}

// byKID selects the public key a token names; without a kid, the only key.
func (s *jwtSet) byKID(kid string) (jwtPublicKey, error) {
	if kid == "" {
		if len(s.keys) == 1 {
			return s.keys[0], nil
		}
		return jwtPublicKey{}, tokenErrorf("JWT header has no kid; this API key has %d public keys: name one as kid", len(s.keys))
	}
	for _, k := range s.keys {
		if k.name == kid {
			return k, nil
		}
	}
	return jwtPublicKey{}, tokenErrorf("JWT kid %q names none of this API key's public keys", truncate(kid, maxJWTKeyName))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
