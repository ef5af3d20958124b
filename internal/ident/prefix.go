package ident

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ParsePrefix reads an address allowlist entry, an address or a CIDR
// prefix, IPv4 or IPv6, in its canonical form: host bits cleared
// ("10.1.2.3/8" is 10.0.0.0/8), a bare address a /32 or /128, and an
// IPv4-mapped IPv6 entry ("::ffff:192.0.2.1", "::ffff:192.0.2.0/120") its
// IPv4 form, since clients' addresses are compared unmapped. Zones are
// refused (they name an interface of this machine, not a client).
func ParsePrefix(s string) (netip.Prefix, error) {
	if s == "" || len(s) > 64 {
		return netip.Prefix{}, errors.New("an address or CIDR is 1 to 64 characters")
	}
	if strings.Contains(s, "%") {
		return netip.Prefix{}, errors.New("an address with a zone (%) cannot match a client")
	}
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not an IP address or CIDR: %w", err)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("not an IP address or CIDR: %w", err)
	}
	if a := p.Addr(); a.Is4In6() {
		if p.Bits() < 96 {
			return netip.Prefix{}, errors.New("an IPv4-mapped prefix needs /96 or longer")
		}
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}
