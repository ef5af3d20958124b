package config

import (
	"strings"
	"testing"
)

func TestValidateAccounts(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"defaults", func(*Config) {}, ""},
		{"plans without the default tiers", func(c *Config) { c.Plans = map[string]Plan{"team": {}} }, ""},
		{"bad signup", func(c *Config) { c.Accounts.Signup = "maybe" }, "accounts.signup: want open, invite or off"},
		{"unknown plan", func(c *Config) { c.Accounts.UpgradePlan = "gold" }, `accounts.upgrade_plan: plan "gold" is not configured`},
		{"max keys of an unknown plan", func(c *Config) { c.Accounts.MaxKeys = map[string]int{"gold": 3} }, "accounts.max_keys.gold"},
		{"short session", func(c *Config) { c.Accounts.SessionIdle = 10e9 }, "accounts.session_idle: want at least 1m"},
		{"smtp without from", func(c *Config) { c.Accounts.SMTP.Addr = "127.0.0.1:25" }, "accounts.smtp.from: required"},
		{"public url with a path", func(c *Config) { c.Accounts.PublicURL = "https://x.example/app" }, "accounts.public_url"},
		{"webhook targets v4 and v6", func(c *Config) { c.Accounts.WebhookPrivateTargets = []string{"127.0.0.1", "10.0.0.0/8", "fd00::/8"} }, ""},
		{"webhook target by name", func(c *Config) { c.Accounts.WebhookPrivateTargets = []string{"127.0.0.0/8", "hooks.internal"} }, `accounts.webhook_private_targets[1]: "hooks.internal": not an IP address or CIDR`},
		{"webhook target bad CIDR", func(c *Config) { c.Accounts.WebhookPrivateTargets = []string{"10.0.0.0/33"} }, "accounts.webhook_private_targets[0]"},
		{"too many webhook targets", func(c *Config) { c.Accounts.WebhookPrivateTargets = make([]string, 101) }, "accounts.webhook_private_targets: at most 100 entries, got 101"},
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

func TestEffectiveSignup(t *testing.T) {
	for listen, want := range map[string]string{"127.0.0.1:8545": "open", "localhost:1": "open", "[::1]:8545": "open", "0.0.0.0:8545": "invite", "10.0.0.5:80": "invite"} {
		c := Defaults()
		c.Listen = listen
		if got := c.EffectiveAccounts().Signup; got != want {
			t.Errorf("listen %s: signup %q, want %q", listen, got, want)
		}
	}
}
