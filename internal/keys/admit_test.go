package keys

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func keyWith(s Security) *Key {
	if err := normalizeSecurity(&s); err != nil {
		panic(err)
	}
	r := Record{ID: "k", Status: StatusActive, Security: s}
	return r.compile(testPlans()[planTeam], nil)
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func secretHash(s string) *Hash { h := Hash(sha256.Sum256([]byte(s))); return &h }

func TestAdmitSecret(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef"
	optional := keyWith(Security{SecretHash: secretHash(secret)})
	required := keyWith(Security{SecretHash: secretHash(secret), SecretRequired: true})
	bypass := keyWith(Security{SecretHash: secretHash(secret), SecretBypassesAllowlists: true, Origins: []string{"https://app.example"}})
	none := keyWith(Security{})
	cases := []struct {
		name       string
		key        *Key
		auth       string
		origin     string
		wantErr    error
		wantBypass bool
	}{
		{"no secret set ignores any Authorization", none, basic("", "whatever"), "", nil, false},
		{"no secret set ignores bearer", none, "Bearer abc", "", nil, false},
		{"optional secret absent", optional, "", "", nil, false},
		{"optional secret correct", optional, basic("", secret), "", nil, false},
		{"optional secret wrong", optional, basic("", "nope"), "", ErrBadSecret, false},
		{"required secret absent", required, "", "", ErrBadSecret, false},
		{"required secret bearer is absent", required, "Bearer " + secret, "", ErrBadSecret, false},
		{"required secret correct", required, basic("", secret), "", nil, false},
		{"scheme is case-insensitive", required, "bAsIc " + base64.StdEncoding.EncodeToString([]byte(":"+secret)), "", nil, false},
		{"required secret with a user", required, basic("user", secret), "", ErrBadSecret, false},
		{"required secret wrong", required, basic("", secret[:31]), "", ErrBadSecret, false},
		{"not base64", required, "Basic !!!", "", ErrBadSecret, false},
		{"no colon", required, "Basic " + base64.StdEncoding.EncodeToString([]byte(secret)), "", ErrBadSecret, false},
		{"oversized", required, "Basic " + strings.Repeat("A", MaxAuthorizationLen), "", ErrBadSecret, false},
		{"bypass with secret skips origin", bypass, basic("", secret), "https://evil.example", nil, true},
		{"bypass without secret checks origin", bypass, "", "https://evil.example", ErrNotAllowed, false},
		{"bypass without secret allowed origin", bypass, "", "https://app.example", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.key.Admit(Request{Authorization: tc.auth, Origin: tc.origin})
			if !errors.Is(err, tc.wantErr) || a.Bypass != tc.wantBypass {
				t.Fatalf("Admit = %+v, %v; want %v, %v", a, err, tc.wantBypass, tc.wantErr)
			}
		})
	}
}

func TestAdmitOrigin(t *testing.T) {
	k := keyWith(Security{Origins: []string{"https://*.example.com", "app.test", "http://localhost:3000", "HTTPS://Exact.Org"}})
	cases := []struct {
		origin string
		ok     bool
	}{
		{"https://a.example.com", true},
		{"https://a.b.example.com", true},
		{"https://A.Example.COM", true},
		{"https://a.example.com:8443", true},
		{"http://a.example.com", false}, // scheme given, must match
		{"https://example.com", false},  // the wildcard needs a subdomain
		{"https://badexample.com", false},
		{"https://a.example.com.evil.net", false},
		{"http://app.test", true}, // no scheme: any scheme
		{"https://app.test:444", true},
		{"https://sub.app.test", false},
		{"http://localhost:3000", true},
		{"http://localhost:3001", false},
		{"http://localhost", false},
		{"https://exact.org", true},
		{"null", false},
		{"", false},
		{"https://a.example.com/path", false},
		{"https://user@a.example.com", false},
		{"https://" + strings.Repeat("a", 400) + ".example.com", false},
	}
	for _, tc := range cases {
		t.Run(tc.origin, func(t *testing.T) {
			_, err := k.Admit(Request{Origin: tc.origin})
			if (err == nil) != tc.ok {
				t.Fatalf("origin %q: err %v, want allowed=%v", tc.origin, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrNotAllowed) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestAdmitUserAgent(t *testing.T) {
	k := keyWith(Security{UserAgents: []string{"MyApp/", "curl"}})
	cases := []struct {
		ua string
		ok bool
	}{
		{"MyApp/1.2 (iOS)", true},
		{"Mozilla/5.0 MyApp/2", true},
		{"curl/8.5.0", true},
		{"myapp/1.2", false}, // substring match is case-sensitive
		{"", false},
		{"Wget/1.0", false},
	}
	for _, tc := range cases {
		t.Run(tc.ua, func(t *testing.T) {
			if _, err := k.Admit(Request{UserAgent: tc.ua}); (err == nil) != tc.ok {
				t.Fatalf("UA %q: err %v, want allowed=%v", tc.ua, err, tc.ok)
			}
		})
	}
	// Types combine with AND.
	both := keyWith(Security{UserAgents: []string{"MyApp"}, Origins: []string{"https://app.example"}})
	if _, err := both.Admit(Request{UserAgent: "MyApp", Origin: "https://other.example"}); err == nil {
		t.Fatal("UA matched but origin did not: want refused")
	}
	if _, err := both.Admit(Request{UserAgent: "MyApp", Origin: "https://app.example"}); err != nil {
		t.Fatalf("both match: %v", err)
	}
}

func TestAllowsMethodContractNetwork(t *testing.T) {
	k := keyWith(Security{Methods: []string{"eth_call", "eth_getLogs"}, Contracts: []string{"0x00000000000000000000000000000000000000aa"}})
	k.Networks = []string{"mainnet"}
	if !k.AllowsMethod("eth_call") || k.AllowsMethod("eth_blockNumber") {
		t.Fatal("method allowlist")
	}
	var a, b [20]byte
	a[19], b[19] = 0xaa, 0xbb
	if !k.AllowsContract(a) || k.AllowsContract(b) || !k.RestrictsContracts() {
		t.Fatal("contract allowlist")
	}
	if !k.AllowsNetwork("mainnet") || k.AllowsNetwork("sepolia") {
		t.Fatal("networks")
	}
	open := keyWith(Security{})
	if !open.AllowsMethod("anything") || !open.AllowsContract(b) || open.RestrictsContracts() || !open.AllowsNetwork("x") {
		t.Fatal("empty lists allow everything")
	}
}

func TestNormalizeSecurityRefuses(t *testing.T) {
	many := make([]string, MaxAllowlist+1)
	for i := range many {
		many[i] = "eth_m" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	cases := []struct {
		name string
		s    Security
		want string
	}{
		{"short address", Security{Contracts: []string{"0x1234"}}, "allowed contracts: \"0x1234\""},
		{"address without 0x", Security{Contracts: []string{"00000000000000000000000000000000000000aa"}}, "not a 0x-prefixed"},
		{"non-hex address", Security{Contracts: []string{"0xzz000000000000000000000000000000000000aa"}}, "not a 0x-prefixed"},
		{"origin with path", Security{Origins: []string{"https://a.com/x"}}, "no path"},
		{"origin inner wildcard", Security{Origins: []string{"https://a.*.com"}}, "wildcard"},
		{"origin bad port", Security{Origins: []string{"https://a.com:99999"}}, "bad port"},
		{"origin bad scheme", Security{Origins: []string{"1http://a.com"}}, "bad scheme"},
		{"empty entry", Security{UserAgents: []string{""}}, "empty entry"},
		{"bad method", Security{Methods: []string{"eth call"}}, "not a JSON-RPC method name"},
		{"too many", Security{Methods: many}, "at most 30 entries"},
		{"required without secret", Security{SecretRequired: true}, "needs a secret"},
		{"UA with newline", Security{UserAgents: []string{"a\nb"}}, "printable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := normalizeSecurity(&tc.s)
			if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an input error containing %q", err, tc.want)
			}
		})
	}
}

func FuzzOriginPattern(f *testing.F) {
	for _, s := range []string{"https://*.example.com", "app.test:80", "http://[::1]:8080", "*.", "://", "a://b:c", "https://a.com/x"} {
		f.Add(s, "https://a.example.com")
	}
	f.Fuzz(func(t *testing.T, pattern, header string) {
		p, err := parseOriginPattern(pattern)
		o, ok := parseOriginHeader(header)
		if err == nil && ok {
			_ = p.matches(o)
		}
	})
}

func FuzzBasicSecret(f *testing.F) {
	for _, s := range []string{basic("", "x"), "Basic ", "basic Og==", "Bearer x", "Basic " + strings.Repeat("=", 600)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		secret, present := basicSecret(h)
		if secret != "" && !present {
			t.Fatal("secret without credentials")
		}
	})
}
