package service

import (
	"net/http"
	"net/netip"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ident"
	"github.com/nodegate/nodegate/internal/ingress"
)

// trustedProxies is trusted_proxies: as the ingress takes it (validated
// with the configuration; an entry that does not parse is left out).
func trustedProxies(cfg config.Config) ingress.TrustedProxies {
	var out ingress.TrustedProxies
	for _, e := range cfg.TrustedProxies {
		if p, err := ident.ParsePrefix(e); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// currentTrustedProxies is the current generation's trusted_proxies (none
// before the first): what each new connection's PROXY header is judged by.
func (s *Service) currentTrustedProxies() ingress.TrustedProxies {
	if g := s.current(); g != nil && len(g.ings) > 0 {
		return g.ings[0].TrustedProxies
	}
	return nil
}

// clientAddr is the address of the client that sent r, as the ingress
// reads it (a trusted proxy's X-Forwarded-For or PROXY header): the
// dashboard keys its sign-in limits and page cap by it.
func (s *Service) clientAddr(r *http.Request) netip.Addr {
	return s.currentTrustedProxies().ClientAddr(r)
}
