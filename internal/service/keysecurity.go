package service

import (
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
