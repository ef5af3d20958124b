package ingress

import (
	"net"
	"net/netip"
	"testing"

	"github.com/pires/go-proxyproto"
)

func TestProxyPolicy(t *testing.T) {
	trusted := TrustedProxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}
	for _, tc := range []struct {
		name    string
		trusted TrustedProxies
		peer    net.Addr
		want    proxyproto.Policy
	}{
		{"no trusted proxies", nil, &net.TCPAddr{IP: net.ParseIP("10.1.2.3")}, proxyproto.SKIP},
		{"a trusted hop", trusted, &net.TCPAddr{IP: net.ParseIP("10.1.2.3")}, proxyproto.USE},
		{"a trusted hop, v4-mapped", trusted, &net.TCPAddr{IP: net.ParseIP("::ffff:10.1.2.3")}, proxyproto.USE},
		{"a trusted v6 hop", trusted, &net.TCPAddr{IP: net.ParseIP("2001:db8::7")}, proxyproto.USE},
		{"a client", trusted, &net.TCPAddr{IP: net.ParseIP("203.0.113.7")}, proxyproto.SKIP},
		{"just outside", trusted, &net.TCPAddr{IP: net.ParseIP("11.0.0.0")}, proxyproto.SKIP},
		{"not TCP", trusted, &net.UnixAddr{Name: "/x"}, proxyproto.SKIP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := proxyPolicy(tc.trusted, tc.peer); got != tc.want {
				t.Fatalf("proxyPolicy(%v) = %v, want %v", tc.peer, got, tc.want)
			}
		})
	}
}
