package customer_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/pires/go-proxyproto"
)

// viaProxy makes b's requests come through a proxy on this machine
// (trusted or not) that names client as their client: by a PROXY protocol
// header (version 1 or 2) at the start of each connection, or by
// X-Forwarded-For (version 0).
func viaProxy(b *browser, client string, version byte) {
	tr := &http.Transport{}
	if version > 0 {
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			h := proxyproto.HeaderProxyFromAddrs(version, &net.TCPAddr{IP: net.ParseIP(client), Port: 40000}, c.RemoteAddr())
			if _, err := h.WriteTo(c); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		}
	}
	var rt http.RoundTripper = tr
	if version == 0 {
		rt = forwardedFor{client: client, next: tr}
	}
	b.c.Transport = rt
}

type forwardedFor struct {
	client string
	next   http.RoundTripper
}

func (f forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.client)
	return f.next.RoundTrip(r)
}

// failSignIns fails n sign-ins from b (on emails no account has, a few
// tries each, so that only the address's limit fills) and returns the
// last status and page.
func failSignIns(b *browser, n int) (int, string) {
	var code int
	var body string
	for i := range n {
		b.get("/dashboard/signin")
		email := "nobody" + string(rune('a'+i/5)) + "@example.com"
		code, body, _ = b.post("/dashboard/signin", url.Values{"email": {email}, "password": {"a wrong password"}})
	}
	return code, body
}

// TestSignInLimitsByTheClientBehindAProxy: behind a trusted proxy (this
// machine, trusted_proxies 127.0.0.1/32) the sign-in limit per address
// counts each client the proxy names (X-Forwarded-For, PROXY protocol v1
// and v2): one client's failures lock out that client, not the other
// clients of the same proxy. A proxy that is not trusted names nobody:
// every client is the proxy's one address, and a PROXY header from it is
// not read (the request is refused as malformed).
func TestSignInLimitsByTheClientBehindAProxy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version byte
	}{{"x-forwarded-for", 0}, {"proxy protocol v1", 1}, {"proxy protocol v2", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1/32"} })
			attacker, neighbour := newBrowser(t, s.URL()), newBrowser(t, s.URL())
			viaProxy(attacker, "203.0.113.7", tc.version)
			viaProxy(neighbour, "198.51.100.9", tc.version)
			if code, body := failSignIns(attacker, 31); code != http.StatusTooManyRequests || !strings.Contains(body, "this address") {
				t.Fatalf("the attacker's 31st failure: %d, want 429 naming this address\n%.400s", code, body)
			}
			if code, body := failSignIns(neighbour, 1); code == http.StatusTooManyRequests {
				t.Fatalf("another client of the same proxy is locked out by the attacker's failures:\n%.400s", body)
			}
		})
	}
	t.Run("untrusted proxy", func(t *testing.T) {
		s := start(t, func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.0/8"} })
		attacker, neighbour := newBrowser(t, s.URL()), newBrowser(t, s.URL())
		viaProxy(attacker, "203.0.113.7", 0)
		viaProxy(neighbour, "198.51.100.9", 0)
		if code, _ := failSignIns(attacker, 31); code != http.StatusTooManyRequests {
			t.Fatalf("the 31st failure: %d, want 429", code)
		}
		if code, _ := failSignIns(neighbour, 1); code != http.StatusTooManyRequests {
			t.Fatalf("a client naming another address through an untrusted proxy got %d: its X-Forwarded-For was believed", code)
		}
		spoof := newBrowser(t, s.URL())
		viaProxy(spoof, "203.0.113.8", 1)
		resp, err := spoof.c.Get(s.URL() + "/dashboard/signin")
		if err == nil {
			resp.Body.Close()
		}
		if err == nil && resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a PROXY header from an untrusted peer answered %d, want 400 or a closed connection", resp.StatusCode)
		}
	})
}
