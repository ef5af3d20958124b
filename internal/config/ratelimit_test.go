package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidateRateLimit(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(c *Config)
		wantErr string
	}{
		{"defaults", func(c *Config) {}, ""},
		{"redis url", func(c *Config) { c.RateLimit.RedisURL = "redis://127.0.0.1:6379/0" }, ""},
		{"not a redis url", func(c *Config) { c.RateLimit.RedisURL = "http://x" }, "rate_limit.redis_url"},
		{"negative timeout", func(c *Config) { c.RateLimit.RedisTimeout = -time.Second }, "rate_limit.redis_timeout"},
		{"negative flush", func(c *Config) { c.RateLimit.UsageFlush = -time.Second }, "rate_limit.usage_flush"},
		{"credits", func(c *Config) { c.Credits = map[string]int{"eth_call": 0, "eth_getLogs": 500} }, ""},
		{"negative credits", func(c *Config) { c.Credits = map[string]int{"eth_call": -1} }, "credits.eth_call"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			tc.edit(&c)
			err := c.Validate()
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
	var c Config
	if err := Decode([]byte("rate_limit:\n  redis_url: redis://h:1/0\n  heartbeat: 2s\ncredits:\n  eth_call: 10\n"), &c); err != nil || c.RateLimit.Heartbeat != 2*time.Second || c.Credits["eth_call"] != 10 {
		t.Fatalf("decode: %+v %v", c.RateLimit, err)
	}
}
