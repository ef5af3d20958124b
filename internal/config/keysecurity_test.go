package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidateKeySecurity(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"defaults", func(*Config) {}, ""},
		{"proxies v4 and v6", func(c *Config) {
			c.TrustedProxies = []string{"127.0.0.1", "10.0.0.0/8", "fd00::/8", "::ffff:10.0.0.0/104"}
		}, ""},
		{"a bad proxy", func(c *Config) { c.TrustedProxies = []string{"10.0.0.0/8", "10.0.0.0/33"} }, `trusted_proxies[1]: "10.0.0.0/33": not an IP address or CIDR`},
		{"a proxy by name", func(c *Config) { c.TrustedProxies = []string{"haproxy"} }, `trusted_proxies[0]: "haproxy"`},
		{"too many proxies", func(c *Config) { c.TrustedProxies = make([]string, 101) }, "trusted_proxies: at most 100 entries, got 101"},
		{"a negative lifetime", func(c *Config) { c.JWT.MaxLifetime = -time.Second }, "jwt.max_lifetime: want 0 (24h) to 720h0m0s, got -1s"},
		{"a lifetime over 30 days", func(c *Config) { c.JWT.MaxLifetime = 721 * time.Hour }, "jwt.max_lifetime"},
		{"a long audience", func(c *Config) { c.JWT.Audience = strings.Repeat("a", 513) }, "jwt.audience: at most 512 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Defaults()
			c.edit(&cfg)
			err := cfg.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestEffectiveJWT(t *testing.T) {
	cfg := Defaults()
	if j := cfg.EffectiveJWT(); j.Audience != "http://127.0.0.1:8545" || j.MaxLifetime != 24*time.Hour {
		t.Fatalf("defaults: %+v, want the public URL and 24h", j)
	}
	cfg.Accounts.PublicURL = "https://rpc.example.com/"
	if j := cfg.EffectiveJWT(); j.Audience != "https://rpc.example.com" {
		t.Fatalf("audience %q, want accounts.public_url", j.Audience)
	}
	cfg.JWT = JWT{Audience: "nodegate", MaxLifetime: time.Hour}
	if j := cfg.EffectiveJWT(); j.Audience != "nodegate" || j.MaxLifetime != time.Hour {
		t.Fatalf("configured: %+v", j)
	}
}
