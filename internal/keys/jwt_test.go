package keys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const testAudience = "https://rpc.example"

// signer is a key pair a test signs tokens with; pub is its PEM.
type signer struct {
	priv crypto.Signer
	alg  jwt.SigningMethod
	pub  string
}

func newES256(t testing.TB) signer {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signer{priv: k, alg: jwt.SigningMethodES256, pub: pemOf(t, &k.PublicKey)}
}

func newRS256(t testing.TB) signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signer{priv: k, alg: jwt.SigningMethodRS256, pub: pemOf(t, &k.PublicKey)}
}

func pemOf(t testing.TB, pub any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// sign makes a token with kid (none when "") and claims.
func (s signer) sign(t testing.TB, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.alg, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	out, err := tok.SignedString(s.priv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goodClaims are valid for an hour from now, for testAudience.
func goodClaims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{"aud": testAudience, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "sub": "app"}
}

func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// jwtKey compiles a key with public keys (name → PEM) as a Cache would,
// with v as its verifier.
func jwtKey(t testing.TB, v *TokenVerifier, required bool, pubs map[string]string, extra Security) *Key {
	t.Helper()
	s := extra
	s.JWTRequired = required
	if err := applyJWTKeys(&s, pubs); err != nil {
		t.Fatal(err)
	}
	if err := normalizeSecurity(&s); err != nil {
		t.Fatal(err)
	}
	r := Record{ID: "k1", Status: StatusActive, Security: s}
	k := r.compile(testPlans()[planTeam], nil)
	k.security.jwt.verifier = v
	return k
}

func TestAdmitToken(t *testing.T) {
	now := time.Now()
	es, rs, other := newES256(t), newRS256(t), newES256(t)
	v := NewTokenVerifier(TokenOptions{Audience: testAudience, MaxLifetime: 2 * time.Hour})
	required := jwtKey(t, v, true, map[string]string{"es": es.pub, "rs": rs.pub}, Security{})
	optional := jwtKey(t, v, false, map[string]string{"es": es.pub}, Security{})
	good := goodClaims(now)
	cases := []struct {
		name    string
		key     *Key
		auth    string
		wantErr string // "" admits
	}{
		{"ES256 by kid", required, "Bearer " + es.sign(t, "es", good), ""},
		{"RS256 by kid", required, "Bearer " + rs.sign(t, "rs", good), ""},
		{"scheme is case-insensitive", required, "bEaReR " + es.sign(t, "es", good), ""},
		{"aud as a list", required, "Bearer " + es.sign(t, "es", with(good, "aud", []string{"x", testAudience})), ""},
		{"nbf passed", required, "Bearer " + es.sign(t, "es", with(good, "nbf", now.Add(-time.Minute).Unix())), ""},
		{"no kid with one public key", optional, "Bearer " + es.sign(t, "", good), ""},
		{"optional, absent", optional, "", ""},
		{"optional, Basic ignored", optional, basic("", "x"), ""},
		{"missing", required, "", "JWT required by this API key"},
		{"missing, Basic instead", required, basic("", "x"), "JWT required by this API key"},
		{"expired", required, "Bearer " + es.sign(t, "es", with(good, "exp", now.Add(-time.Hour).Unix(), "iat", now.Add(-90*time.Minute).Unix())), "JWT expired"},
		{"no exp", required, "Bearer " + es.sign(t, "es", with(good, "exp", nil)), "JWT has no exp claim"},
		{"lifetime over the bound", required, "Bearer " + es.sign(t, "es", with(good, "exp", now.Add(3*time.Hour).Unix())), "JWT lifetime 3h0m0s is over"},
		{"lifetime without iat", required, "Bearer " + es.sign(t, "es", with(good, "iat", nil, "exp", now.Add(3*time.Hour).Unix())), "is over this service's 2h0m0s"},
		{"not valid yet", required, "Bearer " + es.sign(t, "es", with(good, "nbf", now.Add(10*time.Minute).Unix())), "JWT not valid yet (nbf)"},
		{"issued in the future", required, "Bearer " + es.sign(t, "es", with(good, "iat", now.Add(10*time.Minute).Unix())), "JWT issued in the future"},
		{"wrong audience", required, "Bearer " + es.sign(t, "es", with(good, "aud", "https://other.example")), `JWT audience must include "https://rpc.example"`},
		{"no audience", required, "Bearer " + es.sign(t, "es", with(good, "aud", nil)), "JWT audience must include"},
		{"signed by another key", required, "Bearer " + other.sign(t, "es", good), "JWT signature invalid"},
		{"kid of the other algorithm", required, "Bearer " + es.sign(t, "rs", good), `JWT alg ES256 does not fit public key "rs" (RS256)`},
		{"unknown kid", required, "Bearer " + es.sign(t, "nope", good), `JWT kid "nope" names none`},
		{"no kid with two public keys", required, "Bearer " + es.sign(t, "", good), "JWT header has no kid"},
		{"alg none", required, "Bearer " + noneToken(t, good), "JWT alg none is not accepted"},
		{"alg HS256 with the public key as secret", required, "Bearer " + hsToken(t, es.pub, good), "JWT alg HS256 is not accepted"},
		{"malformed", required, "Bearer not.a.token", "JWT malformed"},
		{"two segments", required, "Bearer abc.def", "JWT malformed"},
		{"empty", required, "Bearer ", "JWT malformed"},
		{"oversized", required, "Bearer " + strings.Repeat("a", MaxBearerLen), "JWT malformed"},
		{"bad signature on a good token", required, "Bearer " + tamper(es.sign(t, "es", good)), "JWT signature invalid"},
		{"optional, but a bad token sent", optional, "Bearer " + other.sign(t, "es", good), "JWT signature invalid"},
		{"claims not an object", required, "Bearer " + es.sign(t, "es", with(good, "methods", "eth_call")), "JWT claims malformed: methods is not a []string"},
		{"too many methods", required, "Bearer " + es.sign(t, "es", with(good, "methods", strings.Split(strings.Repeat("m,", 31), ",")[:31])), "JWT claim methods: at most 30"},
		{"bad address claim", required, "Bearer " + es.sign(t, "es", with(good, "addresses", []string{"0x12"})), `JWT claim addresses: "0x12"`},
		{"bad origin claim", required, "Bearer " + es.sign(t, "es", with(good, "origins", []string{"https://a.example/path"})), `JWT claim origins`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.key.Admit(Request{Authorization: tc.auth})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var te *TokenError
			if !errors.As(err, &te) || !strings.Contains(te.Msg, tc.wantErr) {
				t.Fatalf("err = %v, want a TokenError with %q", err, tc.wantErr)
			}
		})
	}
}

func noneToken(t *testing.T, c jwt.MapClaims) string {
	s, err := jwt.NewWithClaims(jwt.SigningMethodNone, c).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hsToken(t *testing.T, secret string, c jwt.MapClaims) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	tok.Header["kid"] = "es"
	s, err := tok.SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tamper changes a signed token's signature (it no longer fits).
func tamper(tok string) string {
	parts := strings.Split(tok, ".")
	c := []byte(parts[2])
	if c[10] == 'A' {
		c[10] = 'B'
	} else {
		c[10] = 'A'
	}
	parts[2] = string(c)
	return strings.Join(parts, ".")
}

func TestTokenNarrowsKey(t *testing.T) {
	now := time.Now()
	es := newES256(t)
	v := NewTokenVerifier(TokenOptions{Audience: testAudience})
	k := jwtKey(t, v, true, map[string]string{"es": es.pub}, Security{Methods: []string{"eth_call", "eth_chainId"}, Origins: []string{"https://*.example.com"}})
	tok := es.sign(t, "es", with(goodClaims(now),
		"methods", []string{"eth_chainId", "eth_getBalance"},
		"addresses", []string{"0x00000000000000000000000000000000000000aA"},
		"origins", []string{"https://app.example.com"}))
	a, err := k.Admit(Request{Authorization: "Bearer " + tok, Origin: "https://app.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	n := a.Narrow
	if !n.AllowsMethod("eth_chainId") || n.AllowsMethod("eth_call") {
		t.Error("methods claim not applied")
	}
	if !k.AllowsMethod("eth_chainId") || k.AllowsMethod("eth_getBalance") {
		t.Error("a token widened the key's methods: eth_getBalance is in the token, not the key")
	}
	var aa [20]byte
	aa[19] = 0xaa
	if !n.RestrictsContracts() || !n.AllowsContract(aa) || n.AllowsContract([20]byte{1}) {
		t.Error("addresses claim not applied")
	}
	if _, err := k.Admit(Request{Authorization: "Bearer " + tok, Origin: "https://other.example.com"}); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("an origin the key allows but the token does not: %v, want ErrNotAllowed", err)
	}
	empty := es.sign(t, "es", with(goodClaims(now), "methods", []string{}))
	a, err = k.Admit(Request{Authorization: "Bearer " + empty, Origin: "https://app.example.com"})
	if err != nil || a.Narrow.AllowsMethod("eth_chainId") {
		t.Errorf("an empty methods claim admits no method: %v, %v", err, a.Narrow.AllowsMethod("eth_chainId"))
	}
	plain := es.sign(t, "es", goodClaims(now))
	if a, err := k.Admit(Request{Authorization: "Bearer " + plain, Origin: "https://app.example.com"}); err != nil || a.Narrow != nil {
		t.Errorf("a token without allowlist claims narrows nothing: %+v, %v", a, err)
	}
}

func TestTokenVerdictCached(t *testing.T) {
	now := time.Now()
	es := newES256(t)
	v := NewTokenVerifier(TokenOptions{Audience: testAudience})
	k := jwtKey(t, v, true, map[string]string{"es": es.pub}, Security{})
	auth := "Bearer " + es.sign(t, "es", goodClaims(now))
	if _, err := k.Admit(Request{Authorization: auth}); err != nil {
		t.Fatal(err)
	}
	if v.cached() != 1 {
		t.Fatalf("cached %d verdicts, want 1", v.cached())
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := k.Admit(Request{Authorization: auth}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a cached token costs %v allocations per request, want 0 (a full check allocates dozens)", allocs)
	}
	// The same token for a key whose public keys changed is checked again:
	// signed by a key that is gone, it is refused.
	other := newES256(t)
	changed := jwtKey(t, v, true, map[string]string{"es": other.pub}, Security{})
	if _, err := changed.Admit(Request{Authorization: auth}); err == nil {
		t.Fatal("a verdict cached for a removed public key admitted the token")
	}
	// Expiry ends a cached verdict.
	v.now = func() time.Time { return now.Add(2 * time.Hour) }
	var te *TokenError
	if _, err := k.Admit(Request{Authorization: auth}); !errors.As(err, &te) || te.Msg != "JWT expired" {
		t.Fatalf("a cached token past its exp: %v, want JWT expired", err)
	}
}

func TestTokenCacheBounded(t *testing.T) {
	now := time.Now()
	es := newES256(t)
	v := NewTokenVerifier(TokenOptions{Audience: testAudience, CacheSize: 8})
	k := jwtKey(t, v, true, map[string]string{"es": es.pub}, Security{})
	for i := range 40 {
		tok := es.sign(t, "es", with(goodClaims(now), "jti", strconv.Itoa(i)))
		if _, err := k.Admit(Request{Authorization: "Bearer " + tok}); err != nil {
			t.Fatal(err)
		}
		if n := v.cached(); n > 8 {
			t.Fatalf("after %d tokens the cache holds %d verdicts, bound 8", i+1, n)
		}
	}
}

func TestKeyWithoutTokenPaysNothing(t *testing.T) {
	k := keyWith(Security{Methods: []string{"eth_call"}, UserAgents: []string{"app"}})
	req := Request{Authorization: "Bearer abc.def.ghi", UserAgent: "app/1.0"}
	if allocs := testing.AllocsPerRun(100, func() {
		if _, err := k.Admit(req); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("a key without public keys nor address list: %v allocations per request, want 0", allocs)
	}
}

func BenchmarkAdmit(b *testing.B) {
	es := newES256(b)
	v := NewTokenVerifier(TokenOptions{Audience: testAudience})
	plain := keyWith(Security{})
	withJWT := jwtKey(b, v, true, map[string]string{"es": es.pub}, Security{})
	auth := "Bearer " + es.sign(b, "es", goodClaims(time.Now()))
	b.Run("no-jwt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = plain.Admit(Request{})
		}
	})
	b.Run("jwt-cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := withJWT.Admit(Request{Authorization: auth}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
