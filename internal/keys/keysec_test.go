package keys

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestParsePublicKeyPEM(t *testing.T) {
	es, rs := newES256(t), newRS256(t)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	rsKey := rs.priv.(*rsa.PrivateKey)
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&rsKey.PublicKey)}))
	privDER, _ := x509.MarshalPKCS8PrivateKey(es.priv)
	priv := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}))
	for _, tc := range []struct {
		name, in, wantAlg, wantErr string
	}{
		{"P-256 PKIX", es.pub, AlgES256, ""},
		{"RSA-2048 PKIX", rs.pub, AlgRS256, ""},
		{"RSA PKCS #1", pkcs1, AlgRS256, ""},
		{"surrounding whitespace", "\n  " + es.pub + "\n\n", AlgES256, ""},
		{"P-384", pemOf(t, &p384.PublicKey), "", "on P-256, got P-384"},
		{"RSA-1024", pemOf(t, &small.PublicKey), "", "2048 to 8192 bits, got 1024"},
		{"a private key", priv, "", `"PRIVATE KEY" PEM block is not a public key`},
		{"two keys", es.pub + rs.pub, "", "text after the PEM block"},
		{"no PEM", "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE", "", "no PEM block"},
		{"bad DER", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "", "read the public key"},
		{"oversized", strings.Repeat("A", maxPEMLen+1), "", "at most 8192 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, alg, err := ParsePublicKeyPEM(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || alg != tc.wantAlg {
				t.Fatalf("= %s, %v; want %s", alg, err, tc.wantAlg)
			}
		})
	}
}

func TestAdmitAddress(t *testing.T) {
	k := keyWith(Security{IPs: []string{"192.0.2.0/24", "::ffff:198.51.100.7", "2001:db8::/32"}})
	all4 := keyWith(Security{IPs: []string{"0.0.0.0/0"}})
	all6 := keyWith(Security{IPs: []string{"::/0"}})
	one := keyWith(Security{IPs: []string{"203.0.113.9/32", "2001:db8::9/128"}})
	secret := keyWith(Security{IPs: []string{"192.0.2.1"}, SecretHash: secretHash("s3cret"), SecretBypassesAllowlists: true})
	addr := netip.MustParseAddr
	for _, tc := range []struct {
		name string
		key  *Key
		req  Request
		ok   bool
	}{
		{"v4 in the /24", k, Request{Remote: addr("192.0.2.200")}, true},
		{"v4 outside", k, Request{Remote: addr("192.0.3.1")}, false},
		{"v4-mapped client in the /24", k, Request{Remote: addr("::ffff:192.0.2.5")}, true},
		{"v4 client of a v4-mapped entry", k, Request{Remote: addr("198.51.100.7")}, true},
		{"v6 in the /32", k, Request{Remote: addr("2001:db8:1::1")}, true},
		{"v6 outside", k, Request{Remote: addr("2001:db9::1")}, false},
		{"no address known", k, Request{}, false},
		{"/0 v4 admits any v4", all4, Request{Remote: addr("203.0.113.1")}, true},
		{"/0 v4 admits a v4-mapped client", all4, Request{Remote: addr("::ffff:203.0.113.1")}, true},
		{"/0 v4 refuses v6", all4, Request{Remote: addr("2001:db8::1")}, false},
		{"/0 v6 admits any v6", all6, Request{Remote: addr("2001:db8::1")}, true},
		{"/0 v6 refuses v4", all6, Request{Remote: addr("203.0.113.1")}, false},
		{"/32 exact", one, Request{Remote: addr("203.0.113.9")}, true},
		{"/32 neighbour", one, Request{Remote: addr("203.0.113.10")}, false},
		{"/128 exact", one, Request{Remote: addr("2001:db8::9")}, true},
		{"/128 neighbour", one, Request{Remote: addr("2001:db8::8")}, false},
		{"a secret never lifts the address list", secret, Request{Remote: addr("192.0.2.2"), Authorization: basic("", "s3cret")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.key.Admit(tc.req)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNotAllowed)) {
				t.Fatalf("Admit = %v, want ok=%v (or ErrNotAllowed)", err, tc.ok)
			}
		})
	}
}

func TestPatchKeySecurity(t *testing.T) {
	es, rs, es2, es3 := newES256(t), newRS256(t), newES256(t), newES256(t)
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		m := testManager(open())
		c, err := m.Create(ctx, CreateParams{Name: "app", Plan: planCore})
		if err != nil {
			t.Fatal(err)
		}
		u, err := m.Update(ctx, c.ID, Patch{
			JWTKeys: map[string]string{"ci": es.pub, "web": rs.pub}, JWTRequired: ptr(true),
			AllowedIPs:  &[]string{"10.1.2.3/8", "::ffff:192.0.2.9", "2001:db8::1"},
			MethodRates: map[string]float64{"eth_getLogs": 5, "eth_call": 20},
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Show(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Record{u.Record, got} {
			s := r.Security
			if !s.JWTRequired || len(s.JWTKeys) != 2 || s.JWTKeys[0].Name != "ci" || s.JWTKeys[0].Alg != AlgES256 || s.JWTKeys[1].Alg != AlgRS256 {
				t.Fatalf("jwt keys = %+v, required %v", s.JWTKeys, s.JWTRequired)
			}
			if strings.Join(s.IPs, " ") != "10.0.0.0/8 192.0.2.9/32 2001:db8::1/128" {
				t.Fatalf("allowed_ips = %v, want canonical forms", s.IPs)
			}
			if len(r.MethodRates) != 2 || r.MethodRates["eth_getLogs"] != 5 {
				t.Fatalf("method_rates = %v", r.MethodRates)
			}
		}
		// Remove one public key and one method rate; the others stay.
		u, err = m.Update(ctx, c.ID, Patch{JWTKeys: map[string]string{"web": ""}, MethodRates: map[string]float64{"eth_call": 0}})
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Security.JWTKeys) != 1 || u.Security.JWTKeys[0].Name != "ci" || len(u.MethodRates) != 1 {
			t.Fatalf("after removals: %+v, %v", u.Security.JWTKeys, u.MethodRates)
		}
		// JSON shows empty lists and maps, never null.
		plain, _ := m.Create(ctx, CreateParams{Name: "plain", Plan: planCore})
		b, _ := json.Marshal(plain.Record)
		for _, want := range []string{`"allowed_ips":[]`, `"jwt_keys":[]`, `"jwt_required":false`, `"method_rates":{}`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("record JSON %s lacks %s", b, want)
			}
		}
		for _, tc := range []struct {
			name    string
			patch   Patch
			wantErr string
		}{
			{"a fourth public key", Patch{JWTKeys: map[string]string{"a": rs.pub, "b": es2.pub, "c": es3.pub}}, "jwt_keys: at most 3 public keys per API key, got 4"},
			{"a bad PEM", Patch{JWTKeys: map[string]string{"x": "nope"}}, `jwt_keys: "x": no PEM block`},
			{"a bad key name", Patch{JWTKeys: map[string]string{"a b": es2.pub}}, `jwt_keys: "a b": a name is 1 to 64`},
			{"required without a public key", Patch{JWTKeys: map[string]string{"ci": ""}}, "jwt_required needs a public key"},
			{"required with a required secret", Patch{NewSecret: true, SecretRequired: ptr(true)}, "jwt_required and secret_required cannot both be set"},
			{"a bad address", Patch{AllowedIPs: &[]string{"10.0.0.256"}}, `allowed ips: "10.0.0.256": not an IP address or CIDR`},
			{"31 addresses", Patch{AllowedIPs: &[]string{"1.0.0.1", "1.0.0.2", "1.0.0.3", "1.0.0.4", "1.0.0.5", "1.0.0.6", "1.0.0.7", "1.0.0.8", "1.0.0.9", "1.0.0.10", "1.0.0.11", "1.0.0.12", "1.0.0.13", "1.0.0.14", "1.0.0.15", "1.0.0.16", "1.0.0.17", "1.0.0.18", "1.0.0.19", "1.0.0.20", "1.0.0.21", "1.0.0.22", "1.0.0.23", "1.0.0.24", "1.0.0.25", "1.0.0.26", "1.0.0.27", "1.0.0.28", "1.0.0.29", "1.0.0.30", "1.0.0.31"}}, "allowed ips: at most 30 entries, got 31"},
			{"a negative method rate", Patch{MethodRates: map[string]float64{"eth_call": -1}}, "method_rates: eth_call: want 0 (remove) to"},
			{"a bad method name", Patch{MethodRates: map[string]float64{"eth call": 1}}, `method_rates: "eth call" is not a JSON-RPC method name`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := m.Update(ctx, c.ID, tc.patch)
				if !IsInputError(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want an input error with %q", err, tc.wantErr)
				}
			})
		}
	})
}

func TestOwnLimitsNamed(t *testing.T) {
	plan := testPlans()[planCore] // 500 credits/s, 3,000,000 a day
	for _, tc := range []struct {
		name            string
		rate            float64
		daily           int64
		wantRate, wantD string
	}{
		{"the plan's", 0, 0, LimitPlanRate, LimitPlanDaily},
		{"lower than the plan: the key's", 50, 1000, LimitKeyRate, LimitKeyDaily},
		{"higher than the plan: the plan's", 5000, 9_000_000, LimitPlanRate, LimitPlanDaily},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Record{ID: "k", RatePerSecond: tc.rate, DailyCredits: tc.daily}
			k := r.compile(plan, nil)
			if k.RateLimitName() != tc.wantRate || k.DailyLimitName() != tc.wantD {
				t.Fatalf("names = %q, %q", k.RateLimitName(), k.DailyLimitName())
			}
			if tc.rate == 5000 && k.RatePerSecond() != 500 {
				t.Fatalf("a key's own rate over the plan's applied: %v", k.RatePerSecond())
			}
		})
	}
}

// FuzzParsePublicKeyPEM: never a panic; an accepted key names one of the
// two algorithms.
func FuzzParsePublicKeyPEM(f *testing.F) {
	es := newES256(f)
	f.Add(es.pub)
	f.Add("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
	f.Add("-----BEGIN RSA PUBLIC KEY-----\nMAA=\n-----END RSA PUBLIC KEY-----\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, alg, err := ParsePublicKeyPEM(s)
		if err == nil && alg != AlgRS256 && alg != AlgES256 {
			t.Fatalf("accepted with alg %q", alg)
		}
	})
}

// FuzzTokenClaims: a signed token's claims, whatever they hold, are
// refused with a TokenError or admitted; never a panic, and an admitted
// token never widens the key's methods.
func FuzzTokenClaims(f *testing.F) {
	es := newES256(f)
	v := NewTokenVerifier(TokenOptions{Audience: testAudience})
	k := jwtKey(f, v, true, map[string]string{"es": es.pub}, Security{Methods: []string{"eth_call"}})
	f.Add(`{"methods":["eth_call"]}`)
	f.Add(`{"addresses":["0x0000000000000000000000000000000000000001"],"origins":["https://*.a.example"]}`)
	f.Add(`{"methods":"x","nbf":"soon"}`)
	f.Add(`{"origins":[""],"exp":1e300}`)
	f.Fuzz(func(t *testing.T, extra string) {
		var claims map[string]any
		if json.Unmarshal([]byte(extra), &claims) != nil {
			return
		}
		c := goodClaims(time.Now())
		for key, val := range claims {
			c[key] = val
		}
		a, err := k.Admit(Request{Authorization: "Bearer " + es.sign(t, "es", c)})
		var te *TokenError
		if err != nil && !errors.As(err, &te) && !errors.Is(err, ErrNotAllowed) {
			t.Fatalf("refused with %T %v, want a TokenError", err, err)
		}
		if err == nil && a.Narrow.AllowsMethod("eth_getBalance") && k.AllowsMethod("eth_getBalance") {
			t.Fatal("a token widened the key's methods")
		}
	})
}
