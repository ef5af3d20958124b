package config

import (
	"fmt"
	"time"

	"github.com/nodegate/nodegate/internal/ident"
)

// JWT configures the check of the JSON Web Tokens that API keys with
// public keys accept (docs/keys.md, "JSON Web Tokens"). Read at start.
type JWT struct {
	// Audience is the "aud" every token must name; empty means the
	// service's public URL (accounts.public_url as in force).
	Audience string `yaml:"audience"`
	// MaxLifetime bounds a token's exp - iat (exp - now without iat);
	// 0 means 24h.
	MaxLifetime time.Duration `yaml:"max_lifetime"`
}

// Bounds of the key-security settings.
const (
	DefaultJWTLifetime = 24 * time.Hour
	maxJWTLifetime     = 30 * 24 * time.Hour
	maxAudienceLen     = 512
	maxTrustedProxies  = 100
)

// EffectiveJWT is jwt: with its defaults filled in.
func (c *Config) EffectiveJWT() JWT {
	j := c.JWT
	if j.Audience == "" {
		j.Audience = c.EffectiveAccounts().PublicURL
	}
	if j.MaxLifetime == 0 {
		j.MaxLifetime = DefaultJWTLifetime
	}
	return j
}

// validateKeySecurity checks jwt: and trusted_proxies:.
func (c *Config) validateKeySecurity(bad func(path, format string, a ...any)) {
	if l := c.JWT.MaxLifetime; l < 0 || l > maxJWTLifetime {
		bad("jwt.max_lifetime", "want 0 (24h) to %s, got %s", maxJWTLifetime, l)
	}
	if len(c.JWT.Audience) > maxAudienceLen {
		bad("jwt.audience", "at most %d characters, got %d", maxAudienceLen, len(c.JWT.Audience))
	}
	if len(c.TrustedProxies) > maxTrustedProxies {
		bad("trusted_proxies", "at most %d entries, got %d", maxTrustedProxies, len(c.TrustedProxies))
	}
	for i, p := range c.TrustedProxies {
		if _, err := ident.ParsePrefix(p); err != nil {
			bad(fmt.Sprintf("trusted_proxies[%d]", i), "%q: %v", p, err)
		}
	}
}
