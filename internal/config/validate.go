package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/nodegate/nodegate/internal/keys"
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
	if c.Upstream != "" {
		if u, err := url.Parse(c.Upstream); err != nil || !upstreamScheme(u.Scheme) || u.Host == "" {
			bad("upstream", "want an http(s):// or ws(s):// URL")
		}
		if c.Node.ChainDir != "" {
			bad("node.chain_dir", "cannot be used with upstream (the embedded node is not started)")
		}
	}
	if c.Node.BlockTime < 0 {
		bad("node.block_time", "must not be negative")
	}
	for i, k := range c.APIKeys {
		if !keys.Valid(k) {
			bad(fmt.Sprintf("api_keys[%d]", i), "a key is 32 lowercase hexadecimal characters")
		}
	}
	c.TLS.validate(bad)
	c.WebSocket.validate(bad)
	return errors.Join(errs...)
}

func upstreamScheme(s string) bool {
	return s == "http" || s == "https" || s == "ws" || s == "wss"
}
