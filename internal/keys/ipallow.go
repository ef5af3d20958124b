package keys

import (
	"net/netip"

	"github.com/nodegate/nodegate/internal/ident"
)

// ParsePrefix is ident.ParsePrefix: the one rule of an address allowlist
// entry (and of trusted_proxies).
func ParsePrefix(s string) (netip.Prefix, error) { return ident.ParsePrefix(s) }

// addrAllowed reports whether a client address is in one of the prefixes;
// an IPv4-mapped IPv6 address is compared as IPv4, and an invalid address
// (one that could not be read) is in none.
func addrAllowed(prefixes []netip.Prefix, a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// compilePrefixes parses the stored entries; nil for an empty list.
func compilePrefixes(list []string) []netip.Prefix {
	if len(list) == 0 {
		return nil
	}
	out := make([]netip.Prefix, 0, len(list))
	for _, e := range list {
		if p, err := ParsePrefix(e); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 { // validated on the way in; a list never opens up by a bad entry
		out = append(out, netip.Prefix{})
	}
	return out
}
