package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/nodegate/nodegate/internal/ident"
)

// FieldError names a bad field by its YAML path.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

// Validate checks every field and returns all problems at once.
func (c *Config) Validate() error {
	var errs []error
	bad := func(path, format string, a ...any) {
		errs = append(errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, a...)})
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		bad("listen", "want host:port, got %q", c.Listen)
	}
	if c.DataDir == "" {
		bad("data_dir", "must not be empty")
	}
	if c.Limits.MaxBodyBytes <= 0 {
		bad("limits.max_body_bytes", "must be positive, got %d", c.Limits.MaxBodyBytes)
	}
	if c.Limits.MaxBatch <= 0 {
		bad("limits.max_batch", "must be positive, got %d", c.Limits.MaxBatch)
	}
	c.validateLimits(bad)
	c.validateObservability(bad)
	if c.Upstream != "" {
		if u, err := url.Parse(c.Upstream); err != nil || !upstreamScheme(u.Scheme) || u.Host == "" {
			bad("upstream", "want an http(s):// or ws(s):// URL")
		}
		if c.Node.ChainDir != "" {
			bad("node.chain_dir", "cannot be used with upstream (the embedded node is not started)")
		}
	}
	if len(c.Networks) > 0 && c.Upstream != "" {
		bad("upstream", "cannot be used with networks (give the network's upstreams instead)")
	}
	c.validateNetworks(bad)
	c.validateStarknetListen(bad)
	c.validateKeySecurity(bad)
	for i := range c.Networks {
		c.Networks[i].validate(fmt.Sprintf("networks[%d]", i), bad)
	}
	if c.Node.BlockTime < 0 {
		bad("node.block_time", "must not be negative")
	}
	for i, k := range c.APIKeys {
		if !ident.ValidKey(k) {
			bad(fmt.Sprintf("api_keys[%d]", i), "a key is 32 lowercase hexadecimal characters")
		}
	}
	c.validateKeys(bad)
	c.TLS.validate(bad)
	c.WebSocket.validate(bad)
	c.validateRateLimit(bad)
	c.validateAccounts(bad)
	c.Shutdown.validate(bad)
	return errors.Join(errs...)
}

// minAdminToken is the shortest admin token accepted: a bearer token is a
// password that anyone who reaches the admin listener may guess at.
const minAdminToken = 16

func (c *Config) validateKeys(bad func(path, format string, a ...any)) {
	if c.DatabaseURL != "" {
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			bad("database_url", "want a postgres://user@host:port/db URL")
		}
	}
	if c.Limits.WriteTimeout < 0 {
		bad("limits.write_timeout", "must not be negative (0 means 30s), got %s", c.Limits.WriteTimeout)
	}
	if c.KeyRefresh <= 0 {
		bad("key_refresh", "must be positive, got %s", c.KeyRefresh)
	}
	if _, ok := c.Plans[PlanTeam]; !ok {
		bad("plans", "must define %q (the plan of api_keys and of the generated first key)", PlanTeam)
	}
	for name, p := range c.Plans {
		if !ident.ValidIdentifier(name) {
			bad("plans."+name, "a plan name is 1 to 64 lowercase letters, digits, - and _")
		}
		p.Validate("plans."+name, bad)
	}
	if c.Admin.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Admin.Listen); err != nil {
			bad("admin.listen", "want host:port (or empty to disable), got %q", c.Admin.Listen)
		}
	}
	if t := c.AdminToken(); t != "" && len(t) < minAdminToken {
		bad("admin.token", "at least %d characters (from admin.token or $%s)", minAdminToken, AdminTokenEnv)
	}
}

func upstreamScheme(s string) bool {
	return s == "http" || s == "https" || s == "ws" || s == "wss"
}
