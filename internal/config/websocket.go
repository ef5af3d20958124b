package config

import "time"

// WebSocket bounds /ws/v3/<key> connections. Zero means the default;
// docs/websocket.md lists every field and its default.
type WebSocket struct {
	// MaxMessageBytes bounds one incoming message (default: limits.max_body_bytes).
	MaxMessageBytes int64 `yaml:"max_message_bytes"`
	// MaxInFlight bounds the messages of one connection answered at once (128);
	// at the limit the connection is not read until one finishes.
	MaxInFlight int `yaml:"max_in_flight"`
	// MaxSubscriptions bounds the subscriptions of one connection (1000).
	MaxSubscriptions int `yaml:"max_subscriptions"`
	// SendQueueBytes bounds what waits for a slow reader (16 MiB).
	SendQueueBytes int `yaml:"send_queue_bytes"`
	// PingInterval (30s) and PongTimeout (30s): keepalive.
	PingInterval time.Duration `yaml:"ping_interval"`
	PongTimeout  time.Duration `yaml:"pong_timeout"`
	// IdleTimeout closes a connection without subscriptions or messages (10m).
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// WriteTimeout bounds one write to a client (10s).
	WriteTimeout time.Duration `yaml:"write_timeout"`
	// ReadBufferBytes (1024) and WriteBufferBytes (4096, pooled) size buffers.
	ReadBufferBytes  int `yaml:"read_buffer_bytes"`
	WriteBufferBytes int `yaml:"write_buffer_bytes"`
}

// validateWebSocket refuses negative values (zero means the default).
func (w *WebSocket) validate(bad func(path, format string, a ...any)) {
	ints := map[string]int64{
		"max_message_bytes": w.MaxMessageBytes, "max_in_flight": int64(w.MaxInFlight),
		"max_subscriptions": int64(w.MaxSubscriptions), "send_queue_bytes": int64(w.SendQueueBytes),
		"read_buffer_bytes": int64(w.ReadBufferBytes), "write_buffer_bytes": int64(w.WriteBufferBytes),
		"ping_interval": int64(w.PingInterval), "pong_timeout": int64(w.PongTimeout),
		"idle_timeout": int64(w.IdleTimeout), "write_timeout": int64(w.WriteTimeout),
	}
	for name, v := range ints {
		if v < 0 {
			bad("websocket."+name, "must not be negative (0 means the default)")
		}
	}
	if w.ReadBufferBytes > 0 && w.ReadBufferBytes < 128 {
		bad("websocket.read_buffer_bytes", "must be at least 128, got %d", w.ReadBufferBytes)
	}
}
