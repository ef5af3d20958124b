package ingress

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
	"github.com/nodegate/nodegate/internal/upstream"
)

// fixture is an ingress on a real HTTP server, keys in a real SQLite file,
// and an upstream that answers every call with "0x1".
type fixture struct {
	url string
	// handler is the server's, for benchmarks that skip the network.
	handler http.Handler
	mgr     *keys.Manager
	cache   *keys.Cache
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, keys.CacheOptions{}, nil)
}

// newFixtureWith is newFixture with the key cache's options (its Poll is
// the fixture's) and the server's trusted proxies.
func newFixtureWith(t testing.TB, opts keys.CacheOptions, trusted TrustedProxies) *fixture {
	t.Helper()
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cache, err := keys.NewCache(ctx, store, keyconfig.Defaults(), config.PlanTeam, nil, func() keys.CacheOptions { opts.Poll = 20 * time.Millisecond; return opts }())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cache.Close)
	up := upstream.Func{ID: "fake", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), nil
	}}
	srv := &Server{
		Keys:     cache,
		Router:   NewRouter(&pipeline.Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM), Upstream: up}),
		Pipeline: pipeline.Build(pipeline.Options{}),
		// The fixture's client is 127.0.0.1: trusting it lets a test
		// play a proxy's X-Forwarded-For.
		TrustedProxies: trusted,
	}
	srv.SetReady(true)
	h := srv.Handler()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &fixture{url: hs.URL, handler: h, mgr: &keys.Manager{Store: store, Plans: keyconfig.Defaults()}, cache: cache}
}

// key creates a key with settings and waits until the ingress sees it.
func (f *fixture) key(t testing.TB, p keys.CreateParams) keys.Created {
	t.Helper()
	if p.Plan == "" {
		p.Plan = config.PlanTeam
	}
	c, err := f.mgr.Create(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.cache.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

type req struct {
	path    string
	body    string
	headers map[string]string
}

func (f *fixture) do(t *testing.T, r req) (int, string) {
	t.Helper()
	body := r.body
	if body == "" {
		body = `{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`
	}
	hr, err := http.NewRequest(http.MethodPost, f.url+r.path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

const (
	okBody        = `{"jsonrpc":"2.0","id":7,"result":"0x1"}`
	noKeyBody     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"API key required in the url"}}`
	invalidBody   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"invalid API key"}}`
	badSecretBody = `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"invalid API key or secret"}}`
	forbiddenBody = `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"rejected due to API key settings"}}`
	forbidden7    = `{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"rejected due to API key settings"}}`
)

func TestAuthPath(t *testing.T) {
	f := newFixture(t)
	k := f.key(t, keys.CreateParams{Name: "plain"}).Key
	revoked := f.key(t, keys.CreateParams{Name: "gone"})
	if _, err := f.mgr.Revoke(context.Background(), revoked.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.cache.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		path       string
		wantStatus int
		wantBody   string
	}{
		{"valid", "/v3/" + k, 200, okBody},
		{"no key", "/v3/", 401, noKeyBody},
		{"no key, no slash", "/v3", 401, noKeyBody},
		{"unknown", "/v3/0123456789abcdef0123456789abcdef", 401, invalidBody},
		{"revoked", "/v3/" + revoked.Key, 401, invalidBody},
		{"too short", "/v3/" + k[:31], 401, invalidBody},
		{"too long", "/v3/" + k + "0", 401, invalidBody},
		{"upper case", "/v3/" + strings.ToUpper(k), 401, invalidBody},
		{"non-hex", "/v3/" + k[:31] + "g", 401, invalidBody},
		{"trailing slash", "/v3/" + k + "/", 401, invalidBody},
		{"extra segment", "/v3/" + k + "/x", 401, invalidBody},
		{"encoded slash", "/v3/" + k[:16] + "%2F" + k[16:], 401, invalidBody},
		{"encoded key", "/v3/%" + strings.Join(splitHex(k), "%"), 200, okBody}, // %-encoding of the same bytes is the same key
		{"encoded NUL", "/v3/" + k + "%00", 401, invalidBody},
		{"query string ignored", "/v3/" + k + "?key=x", 200, okBody},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.do(t, req{path: tc.path})
			if status != tc.wantStatus || body != tc.wantBody {
				t.Fatalf("got %d %s\nwant %d %s", status, body, tc.wantStatus, tc.wantBody)
			}
			if strings.Contains(body, k) {
				t.Fatal("the key appears in a response")
			}
		})
	}
}

// splitHex gives the hex code of every byte of s, for %-encoding it whole.
func splitHex(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = hexByte(s[i])
	}
	return out
}

func hexByte(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

func TestAuthSecretAndAllowlists(t *testing.T) {
	f := newFixture(t)
	req1 := keys.CreateParams{Secret: true, Settings: keys.Patch{SecretRequired: ptr(true)}}
	required := f.key(t, req1)
	bypass := f.key(t, keys.CreateParams{Secret: true, Settings: keys.Patch{
		SecretBypassesAllowlists: ptr(true),
		AllowedOrigins:           &[]string{"https://*.example.com"},
		AllowedUserAgents:        &[]string{"MyApp/"},
		AllowedMethods:           &[]string{"eth_chainId"},
	}})
	methodsOnly := f.key(t, keys.CreateParams{Settings: keys.Patch{AllowedMethods: &[]string{"eth_blockNumber", "eth_getStorageAt"}}})
	mainnetOnly := f.key(t, keys.CreateParams{Networks: []string{"mainnet"}})
	sepoliaOnly := f.key(t, keys.CreateParams{Networks: []string{"sepolia"}})
	good := map[string]string{"Origin": "https://app.example.com", "User-Agent": "MyApp/1.0"}
	cases := []struct {
		name       string
		r          req
		wantStatus int
		wantBody   string
	}{
		{"required secret missing", req{path: "/v3/" + required.Key}, 401, badSecretBody},
		{"required secret correct", req{path: "/v3/" + required.Key, headers: map[string]string{"Authorization": basic(required.Secret)}}, 200, okBody},
		{"required secret wrong", req{path: "/v3/" + required.Key, headers: map[string]string{"Authorization": basic("x" + required.Secret[1:])}}, 401, badSecretBody},
		{"oversized authorization", req{path: "/v3/" + required.Key, headers: map[string]string{"Authorization": "Basic " + strings.Repeat("QUFB", 8<<10)}}, 401, badSecretBody},
		{"origin and UA allowed", req{path: "/v3/" + bypass.Key, body: chainID, headers: good}, 200, okBody},
		{"origin refused", req{path: "/v3/" + bypass.Key, body: chainID, headers: map[string]string{"Origin": "https://evil.com", "User-Agent": "MyApp/1.0"}}, 403, forbiddenBody},
		{"origin missing", req{path: "/v3/" + bypass.Key, body: chainID, headers: map[string]string{"User-Agent": "MyApp/1.0"}}, 403, forbiddenBody},
		{"UA refused", req{path: "/v3/" + bypass.Key, body: chainID, headers: map[string]string{"Origin": "https://app.example.com", "User-Agent": "curl/8"}}, 403, forbiddenBody},
		{"method refused", req{path: "/v3/" + bypass.Key, headers: good}, 403, forbidden7},
		{"secret bypasses origin, UA and methods", req{path: "/v3/" + bypass.Key, headers: map[string]string{"Origin": "https://evil.com", "Authorization": basic(bypass.Secret)}}, 200, okBody},
		{"method allowed", req{path: "/v3/" + methodsOnly.Key}, 200, okBody},
		{"method not allowed", req{path: "/v3/" + methodsOnly.Key, body: chainID7}, 403, forbidden7},
		{"network allowed", req{path: "/v3/" + mainnetOnly.Key}, 200, okBody},
		{"network not allowed", req{path: "/v3/" + sepoliaOnly.Key}, 403, forbidden7},
		{"batch: refused entry only, HTTP 200", req{path: "/v3/" + methodsOnly.Key, body: "[" + chainID7 + "," + blockNumber8 + "]"}, 200,
			`[{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"rejected due to API key settings"}},{"jsonrpc":"2.0","id":8,"result":"0x1"}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.do(t, tc.r)
			if status != tc.wantStatus || body != tc.wantBody {
				t.Fatalf("got %d %s\nwant %d %s", status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

const (
	chainID      = `{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}`
	chainID7     = chainID
	blockNumber8 = `{"jsonrpc":"2.0","id":8,"method":"eth_blockNumber","params":[]}`
)

func basic(secret string) string {
	return "Basic " + b64(":"+secret)
}

func ptr[T any](v T) *T { return &v }
