package keyconfig

import (
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
)

// Defaults are the plans of the default configuration (config.Defaults),
// in the form the keys package uses.
func Defaults() map[string]keys.Plan {
	c := config.Defaults()
	return c.PlanSet()
}

// Store is where keys are kept.
func Store(c *config.Config) keys.StoreConfig {
	return keys.StoreConfig{DataDir: c.DataDir, DatabaseURL: c.DatabaseURL}
}

// Tokens is jwt: as the keys' token check takes it.
func Tokens(c *config.Config) keys.TokenOptions {
	j := c.EffectiveJWT()
	return keys.TokenOptions{Audience: j.Audience, MaxLifetime: j.MaxLifetime}
}
