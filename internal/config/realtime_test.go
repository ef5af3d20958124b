package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidateTLSAndWebSocket(t *testing.T) {
	cert := filepath.Join(t.TempDir(), "c.pem")
	if err := os.WriteFile(cert, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // "" = valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"ws upstream", func(c *Config) { c.Upstream = "wss://node.example:8546/key" }, ""},
		{"ftp upstream", func(c *Config) { c.Upstream = "ftp://x" }, "upstream:"},
		{"self-signed", func(c *Config) { c.TLS.SelfSigned = true }, ""},
		{"cert without key", func(c *Config) { c.TLS.Cert = cert }, "tls: cert and key must be given together"},
		{"self-signed and files", func(c *Config) { c.TLS.SelfSigned, c.TLS.Cert, c.TLS.Key = true, cert, cert }, "tls.self_signed"},
		{"missing file", func(c *Config) { c.TLS.Cert, c.TLS.Key = cert, cert+".nope" }, "tls.key: cannot read"},
		{"negative ws limit", func(c *Config) { c.WebSocket.MaxInFlight = -1 }, "websocket.max_in_flight"},
		{"tiny read buffer", func(c *Config) { c.WebSocket.ReadBufferBytes = 16 }, "websocket.read_buffer_bytes"},
		{"negative ping", func(c *Config) { c.WebSocket.PingInterval = -time.Second }, "websocket.ping_interval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			tc.edit(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want %q, got %v", tc.want, err)
			}
		})
	}
}

func TestDecodeRealtimeFields(t *testing.T) {
	c := Defaults()
	raw := "tls:\n  self_signed: true\n  reload_check: 2s\nwebsocket:\n  max_subscriptions: 5\n  idle_timeout: 1m\n"
	if err := Decode([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	if !c.TLS.SelfSigned || c.TLS.ReloadCheck != 2*time.Second || c.WebSocket.MaxSubscriptions != 5 || c.WebSocket.IdleTimeout != time.Minute {
		t.Fatalf("decoded %+v %+v", c.TLS, c.WebSocket)
	}
	if err := Decode([]byte("websocket:\n  max_frames: 1\n"), &c); err == nil {
		t.Fatal("unknown websocket field accepted")
	}
}
