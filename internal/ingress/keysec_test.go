package ingress

import (
	"bytes"
	"crypto/ecdsa"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
)

func prefixes(t testing.TB, list ...string) TrustedProxies {
	t.Helper()
	var out TrustedProxies
	for _, s := range list {
		p, err := keys.ParsePrefix(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestClientAddr(t *testing.T) {
	lb := prefixes(t, "10.0.0.0/8", "2001:db8:ffff::/48")
	for _, tc := range []struct {
		name    string
		trusted TrustedProxies
		peer    string
		xff     []string
		want    string // "" is the invalid address
	}{
		{"no proxies: the peer", nil, "192.0.2.1:5000", nil, "192.0.2.1"},
		{"no proxies: a client's own header ignored", nil, "192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"untrusted peer: its header ignored", lb, "192.0.2.1:5000", []string{"10.0.0.1"}, "192.0.2.1"},
		{"trusted peer: the client it names", lb, "10.0.0.2:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"trusted peer: a client's spoofed entry on the left ignored", lb, "10.0.0.2:5000", []string{"198.51.100.1, 203.0.113.9"}, "203.0.113.9"},
		{"a chain of trusted hops is skipped", lb, "10.0.0.2:5000", []string{"198.51.100.1, 203.0.113.9, 10.9.9.9, 10.0.0.3"}, "203.0.113.9"},
		{"headers read right to left", lb, "10.0.0.2:5000", []string{"198.51.100.1", "203.0.113.9, 10.0.0.3"}, "203.0.113.9"},
		{"trusted peer without a header: the peer", lb, "10.0.0.2:5000", nil, "10.0.0.2"},
		{"every hop trusted: the first", lb, "10.0.0.2:5000", []string{"10.0.0.7, 10.0.0.3"}, "10.0.0.7"},
		{"v6 peer and client", lb, "[2001:db8:ffff::2]:443", []string{"2001:db8:1::5"}, "2001:db8:1::5"},
		{"v4-mapped trusted peer", lb, "[::ffff:10.0.0.2]:80", []string{"203.0.113.9"}, "203.0.113.9"},
		{"v4-mapped entry unmapped", lb, "10.0.0.2:80", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{"entry with a port", lb, "10.0.0.2:80", []string{"203.0.113.9:1234"}, "203.0.113.9"},
		{"bracketed v6 entry", lb, "10.0.0.2:80", []string{"[2001:db8:1::5]"}, "2001:db8:1::5"},
		{"bracketed v6 entry with a port", lb, "10.0.0.2:80", []string{"[2001:db8:1::5]:80"}, "2001:db8:1::5"},
		{"garbage entry: no address", lb, "10.0.0.2:80", []string{"unknown"}, ""},
		{"garbage behind a good one: the good one", lb, "10.0.0.2:80", []string{"junk, 203.0.113.9"}, "203.0.113.9"},
		{"empty entry: no address", lb, "10.0.0.2:80", []string{"203.0.113.9, "}, ""},
		{"a zone is not an address", lb, "10.0.0.2:80", []string{"fe80::1%eth0"}, ""},
		{"too many trusted hops: no address", lb, "10.0.0.2:80", []string{strings.Repeat("10.0.0.1, ", 40) + "10.0.0.1"}, ""},
		{"unreadable peer: no address", lb, "@pipe", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tc.peer, Header: http.Header{}}
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := tc.trusted.ClientAddr(r)
			if tc.want == "" {
				if got.IsValid() {
					t.Fatalf("ClientAddr = %v, want none", got)
				}
				return
			}
			if got != netip.MustParseAddr(tc.want) {
				t.Fatalf("ClientAddr = %v, want %s", got, tc.want)
			}
		})
	}
}

// FuzzClientAddr: never a panic; the address found is none, or unmapped
// without a zone; and a client that is not a trusted proxy is never read
// from the header it sends.
func FuzzClientAddr(f *testing.F) {
	f.Add("203.0.113.9")
	f.Add("198.51.100.1, 10.0.0.1")
	f.Add("[::1]:80,,garbage")
	f.Add(strings.Repeat(",", 100))
	trusted := prefixes(f, "10.0.0.0/8")
	f.Fuzz(func(t *testing.T, xff string) {
		r := &http.Request{RemoteAddr: "10.0.0.2:80", Header: http.Header{"X-Forwarded-For": {xff}}}
		got := trusted.ClientAddr(r)
		if got.IsValid() && (got.Is4In6() || got.Zone() != "") {
			t.Fatalf("ClientAddr = %v: not unmapped, or with a zone", got)
		}
		r.RemoteAddr = "192.0.2.1:80"
		if got := trusted.ClientAddr(r); got != netip.MustParseAddr("192.0.2.1") {
			t.Fatalf("an untrusted peer's header was read: %v", got)
		}
	})
}

func TestAddressAllowlistOverHTTP(t *testing.T) {
	direct := newFixture(t)
	behind := newFixtureWith(t, keys.CacheOptions{}, prefixes(t, "127.0.0.1"))
	local := keys.Patch{AllowedIPs: &[]string{"127.0.0.1"}}
	remote := keys.Patch{AllowedIPs: &[]string{"192.0.2.0/24", "::ffff:198.51.100.7"}}
	for _, tc := range []struct {
		name   string
		f      *fixture
		patch  keys.Patch
		xff    string
		status int
	}{
		{"the client's own address is allowed", direct, local, "", 200},
		{"disallowed address: 403", direct, remote, "", 403},
		{"a client's own X-Forwarded-For is ignored", direct, remote, "192.0.2.7", 403},
		{"a trusted proxy's X-Forwarded-For is believed", behind, remote, "192.0.2.7", 200},
		{"v4-mapped entry matches the proxy's v4 entry", behind, remote, "198.51.100.7", 200},
		{"a spoofed left entry behind a trusted proxy is ignored", behind, remote, "192.0.2.7, 203.0.113.1", 403},
		{"the proxy's own address is not the client's", behind, local, "203.0.113.1", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.f.key(t, keys.CreateParams{Name: "ips", Settings: tc.patch})
			h := map[string]string{}
			if tc.xff != "" {
				h["X-Forwarded-For"] = tc.xff
			}
			status, body := tc.f.do(t, req{path: "/v3/" + k.Key, headers: h})
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if status == 403 && body != forbiddenBody {
				t.Fatalf("body %s, want %s", body, forbiddenBody)
			}
		})
	}
}

// tokenSigner signs ES256 tokens for a key's public key "ci".
type tokenSigner struct {
	priv *ecdsa.PrivateKey
	pub  string
}

func newTokenSigner(t testing.TB) tokenSigner {
	t.Helper()
	k, pub := testenv.JWTKey(t)
	return tokenSigner{priv: k, pub: pub}
}

func (s tokenSigner) bearer(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["kid"] = "ci"
	out, err := tok.SignedString(s.priv)
	if err != nil {
		t.Fatal(err)
	}
	return "Bearer " + out
}

const fixtureAudience = "https://rpc.example"

func TestJWTOverHTTP(t *testing.T) {
	f := newFixtureWith(t, keys.CacheOptions{Tokens: keys.TokenOptions{Audience: fixtureAudience}}, nil)
	s, other := newTokenSigner(t), newTokenSigner(t)
	k := f.key(t, keys.CreateParams{Name: "jwt", Settings: keys.Patch{JWTKeys: map[string]string{"ci": s.pub}, JWTRequired: ptrTo(true)}})
	now := time.Now()
	good := jwt.MapClaims{"aud": fixtureAudience, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
	claims := func(kv ...any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for k, v := range good {
			c[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	unauthorized := func(msg string) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"` + msg + `"}}`
	}
	for _, tc := range []struct {
		name, auth, body string
		status           int
		want             string
	}{
		{"good token", s.bearer(t, good), "", 200, okBody},
		{"missing", "", "", 401, unauthorized("JWT required by this API key: send Authorization: Bearer TOKEN")},
		{"expired", s.bearer(t, claims("exp", now.Add(-time.Hour).Unix(), "iat", now.Add(-2*time.Hour).Unix())), "", 401, unauthorized("JWT expired")},
		{"badly signed", other.bearer(t, good), "", 401, unauthorized("JWT signature invalid")},
		{"wrong audience", s.bearer(t, claims("aud", "https://evil.example")), "", 401, unauthorized(`JWT audience must include \"https://rpc.example\"`)},
		{"a method the token leaves out", s.bearer(t, claims("methods", []string{"eth_chainId"})), "", 200, forbidden7},
		{"a method the token names", s.bearer(t, claims("methods", []string{"eth_blockNumber"})), "", 200, okBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.auth != "" {
				h["Authorization"] = tc.auth
			}
			status, body := f.do(t, req{path: "/v3/" + k.Key, headers: h, body: tc.body})
			if status != tc.status && !(tc.want == forbidden7 && status == 403) {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if strings.TrimSpace(body) != tc.want {
				t.Fatalf("body %s\nwant %s", body, tc.want)
			}
		})
	}
}

func TestJWTOnWebSocketUpgrade(t *testing.T) {
	f := newFixtureWith(t, keys.CacheOptions{Tokens: keys.TokenOptions{Audience: fixtureAudience}}, nil)
	s := newTokenSigner(t)
	k := f.key(t, keys.CreateParams{Name: "jwt", Settings: keys.Patch{JWTKeys: map[string]string{"ci": s.pub}, JWTRequired: ptrTo(true)}})
	url := "ws" + strings.TrimPrefix(f.url, "http") + "/ws/v3/" + k.Key
	if _, resp, err := websocket.DefaultDialer.Dial(url, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("an upgrade without a token: %v, %v; want 401", err, resp)
	}
	now := time.Now()
	h := http.Header{"Authorization": {s.bearer(t, jwt.MapClaims{"aud": fixtureAudience, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()})}}
	c, _, err := websocket.DefaultDialer.Dial(url, h)
	if err != nil {
		t.Fatalf("an upgrade with a bearer token: %v", err)
	}
	defer c.Close()
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, msg, err := c.ReadMessage()
	if err != nil || string(msg) != okBody {
		t.Fatalf("answer %s, %v; want %s", msg, err, okBody)
	}
}

func ptrTo[T any](v T) *T { return &v }

// BenchmarkKeySecurity is one HTTP request through the server's handler
// (no network) for a key without public keys nor address list, and for
// one that requires a JWT (its verdict cached after the first request):
// the difference in allocations is the token check's.
func BenchmarkKeySecurity(b *testing.B) {
	f := newFixtureWith(b, keys.CacheOptions{Tokens: keys.TokenOptions{Audience: fixtureAudience}}, nil)
	s := newTokenSigner(b)
	plain := f.key(b, keys.CreateParams{Name: "plain"}).Key
	withJWT := f.key(b, keys.CreateParams{Name: "jwt", Settings: keys.Patch{JWTKeys: map[string]string{"ci": s.pub}, JWTRequired: ptrTo(true)}}).Key
	withIPs := f.key(b, keys.CreateParams{Name: "ips", Settings: keys.Patch{AllowedIPs: &[]string{"192.0.2.0/24", "127.0.0.0/8"}}}).Key
	now := time.Now()
	auth := s.bearer(b, jwt.MapClaims{"aud": fixtureAudience, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()})
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`)
	// Every request carries the token: a key without public keys ignores it.
	for _, tc := range []struct{ name, key, auth string }{{"plain", plain, auth}, {"jwt", withJWT, auth}, {"ips", withIPs, auth}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/v3/"+tc.key, bytes.NewReader(body))
				r.RemoteAddr = "127.0.0.1:40000"
				r.Header.Set("Authorization", tc.auth)
				w := httptest.NewRecorder()
				f.handler.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// TestAdmitKeyAllocatesNothing: admitting a request costs no allocation,
// for a key without public keys or address list and for one whose token
// verdict is cached (an error variable kept on the heap for the refusal
// cost every request one).
func TestAdmitKeyAllocatesNothing(t *testing.T) {
	f := newFixtureWith(t, keys.CacheOptions{Tokens: keys.TokenOptions{Audience: fixtureAudience}}, nil)
	s := newTokenSigner(t)
	now := time.Now()
	auth := s.bearer(t, jwt.MapClaims{"aud": fixtureAudience, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()})
	for _, tc := range []struct {
		name  string
		patch keys.Patch
	}{
		{"plain", keys.Patch{}},
		{"jwt", keys.Patch{JWTKeys: map[string]string{"ci": s.pub}, JWTRequired: ptrTo(true)}},
		{"ips", keys.Patch{AllowedIPs: &[]string{"127.0.0.0/8"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := f.key(t, keys.CreateParams{Name: tc.name, Settings: tc.patch})
			k, ok := f.cache.Lookup(c.Key)
			if !ok {
				t.Fatal("key not found")
			}
			req := keys.Request{Authorization: auth, Remote: netip.MustParseAddr("127.0.0.1")}
			if _, e := admitKey(k, req); e != nil {
				t.Fatal(e)
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = admitKey(k, req) }); n != 0 {
				t.Fatalf("%v allocations per admitted request, want 0", n)
			}
		})
	}
}
