package ingress

import (
	"net/http"
	"net/netip"
	"strings"
)

// TrustedProxies are the hops whose X-Forwarded-For nodegate believes
// (config trusted_proxies): a request whose connection comes from one of
// them has its client address read from the header, right to left,
// skipping the trusted hops; any other request's X-Forwarded-For is
// ignored, so a client cannot claim an address by sending the header.
type TrustedProxies []netip.Prefix

// maxForwardedHops bounds the X-Forwarded-For entries read.
const maxForwardedHops = 32

// trusts reports whether a is one of the trusted hops.
func (t TrustedProxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr is the address of the client that sent r: the connection's
// peer, or, when the peer is a trusted proxy, the last untrusted address
// of X-Forwarded-For. An entry that cannot be read, or more hops than
// maxForwardedHops, gives the invalid address, which no allowlist admits.
func (t TrustedProxies) ClientAddr(r *http.Request) netip.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := peer.Addr().Unmap()
	if len(t) == 0 || !t.trusts(addr) {
		return addr
	}
	headers := r.Header.Values("X-Forwarded-For")
	hops := 0
	for i := len(headers) - 1; i >= 0; i-- {
		h := headers[i]
		for h != "" {
			var entry string
			if j := strings.LastIndexByte(h, ','); j >= 0 {
				entry, h = h[j+1:], h[:j]
			} else {
				entry, h = h, ""
			}
			if hops++; hops > maxForwardedHops {
				return netip.Addr{}
			}
			a, ok := forwardedAddr(strings.TrimSpace(entry))
			if !ok {
				return netip.Addr{}
			}
			if !t.trusts(a) {
				return a
			}
			addr = a
		}
	}
	return addr // every hop trusted: the first of them
}

// forwardedAddr reads one X-Forwarded-For entry: an address, with a port
// or in brackets as some proxies write them.
func forwardedAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return forwardedAddr(s[1 : len(s)-1])
	}
	return netip.Addr{}, false
}
