package ingress

import (
	"net"
	"net/netip"
	"time"

	"github.com/pires/go-proxyproto"
)

// proxyHeaderTimeout bounds how long a trusted proxy's connection may
// take to send its PROXY header (or the first bytes that show it has none).
const proxyHeaderTimeout = 10 * time.Second

// ProxyProtocolListener wraps a client listener so that a connection from
// a trusted proxy (trusted(), read at each connection: a reload's
// trusted_proxies apply to the next one) may open with a PROXY protocol
// header, v1 or v2 (HAProxy's send-proxy, send-proxy-v2): its source
// address becomes the connection's remote address, which ClientAddr, the
// key's client address allowlist and the dashboard's sign-in limits read.
// A trusted proxy's connection without a header is served as it is. From
// any other peer the header is never read: its bytes reach the HTTP server
// as they came and are refused there as a malformed request, so that no
// client can claim an address by sending a header itself.
func ProxyProtocolListener(ln net.Listener, trusted func() TrustedProxies) net.Listener {
	return &proxyproto.Listener{
		Listener:          ln,
		ReadHeaderTimeout: proxyHeaderTimeout,
		ConnPolicy: func(o proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
			return proxyPolicy(trusted(), o.Upstream), nil
		},
	}
}

// proxyPolicy is USE (the header is optional and believed) for a trusted
// peer, SKIP (the connection as it is, no header read) for any other.
func proxyPolicy(t TrustedProxies, peer net.Addr) proxyproto.Policy {
	if len(t) == 0 {
		return proxyproto.SKIP
	}
	tcp, ok := peer.(*net.TCPAddr)
	if !ok {
		return proxyproto.SKIP
	}
	a, ok := netip.AddrFromSlice(tcp.IP)
	if !ok || !t.trusts(a) {
		return proxyproto.SKIP
	}
	return proxyproto.USE
}
