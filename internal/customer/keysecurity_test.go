package customer_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/nodegate/nodegate/internal/config"
)

// rpcWith posts eth_chainId to url with an Authorization header.
func rpcWith(t *testing.T, rpcURL, auth string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, rpcURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestKeySecurityOnTheKeyPage: a customer sets a key's client addresses,
// JWT public key and "require JWT", and its own limits on the key page;
// the gateway applies each.
func TestKeySecurityOnTheKeyPage(t *testing.T) {
	const audience = "nodegate-test"
	s := start(t, func(c *config.Config) { c.JWT.Audience = audience })
	b := newBrowser(t, s.URL())
	b.signUp("keysec@example.com", "a long enough password")
	_, id, rpcURL := b.createKey("secured")
	page := "/dashboard/keys/" + id
	save := func(form url.Values) (int, string) {
		t.Helper()
		b.get(page)
		code, body, _ := b.post(page, form)
		return code, body
	}
	saved := func(form url.Values) {
		t.Helper()
		if code, body := save(form); code != http.StatusSeeOther {
			t.Fatalf("%v: %d\n%s", form, code, body)
		}
	}

	// Client addresses: a list without this client's address refuses it.
	saved(url.Values{"action": {"addresses"}, "allowed_ips": {"192.0.2.0/24\n2001:db8::/32"}})
	eventually(t, "a disallowed address refused", func() bool { code, _ := rpc(t, rpcURL, "eth_chainId"); return code == http.StatusForbidden })
	if _, body := b.get(page); !strings.Contains(body, "192.0.2.0/24\n2001:db8::/32</textarea>") {
		t.Fatalf("the page does not show the addresses:\n%s", body)
	}
	saved(url.Values{"action": {"addresses"}, "allowed_ips": {"::ffff:127.0.0.1"}})
	eventually(t, "the allowed address answered", func() bool { code, _ := rpc(t, rpcURL, "eth_chainId"); return code == http.StatusOK })
	if code, body := save(url.Values{"action": {"addresses"}, "allowed_ips": {"10.0.0.0/33"}}); code != http.StatusBadRequest || !strings.Contains(body, "allowed ips") {
		t.Fatalf("a bad CIDR: %d\n%s", code, body)
	}

	// JWT: upload a public key, require a token.
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	pub := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	saved(url.Values{"action": {"jwt-add"}, "jwt_name": {"ci"}, "jwt_pem": {pub}})
	saved(url.Values{"action": {"jwt-required"}, "jwt_required": {"1"}})
	if _, body := b.get(page); !strings.Contains(body, "<code>ci</code> (ES256)") || !strings.Contains(body, `id="jwt_required" value="1" checked`) {
		t.Fatalf("the page does not show the public key and the requirement:\n%s", body)
	}
	eventually(t, "a request without a token refused", func() bool {
		code, body := rpcWith(t, rpcURL, "")
		return code == http.StatusUnauthorized && strings.Contains(body, "JWT required")
	})
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"aud": audience, "exp": time.Now().Add(time.Hour).Unix()})
	tok.Header["kid"] = "ci"
	signed, err := tok.SignedString(priv)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := rpcWith(t, rpcURL, "Bearer "+signed); code != http.StatusOK {
		t.Fatalf("a request with a good token: %d %s", code, body)
	}
	if code, body := save(url.Values{"action": {"jwt-remove"}, "jwt_name": {"ci"}}); code != http.StatusBadRequest || !strings.Contains(body, "jwt_required needs a public key") {
		t.Fatalf("removing the only key while required: %d\n%s", code, body)
	}
	saved(url.Values{"action": {"jwt-required"}})

	// Limits: within the plan only; a method's own rate refuses, naming it.
	if code, body := save(url.Values{"action": {"limits"}, "rate_per_second": {"100000"}}); code != http.StatusBadRequest || !strings.Contains(body, "rate_per_second: at most the plan") {
		t.Fatalf("a rate over the plan's: %d\n%s", code, body)
	}
	saved(url.Values{"action": {"limits"}, "rate_per_second": {"100"}, "daily_credits": {"50000"}, "method_rates": {"eth_chainId=0.01"}})
	if _, body := b.get(page); !strings.Contains(body, `value="100"`) || !strings.Contains(body, "eth_chainId=0.01</textarea>") {
		t.Fatalf("the page does not show the limits:\n%s", body)
	}
	eventually(t, "eth_chainId refused by its own rate", func() bool {
		code, body := rpcWith(t, rpcURL, "Bearer "+signed)
		return code == http.StatusTooManyRequests && strings.Contains(body, `"limit":"method_rates.eth_chainId of this API key (calls per second)"`)
	})
}
