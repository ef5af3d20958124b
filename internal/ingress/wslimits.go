package ingress

import "time"

// WSLimits bound what a WebSocket client controls. Zero values take the
// defaults below (docs/websocket.md lists them).
type WSLimits struct {
	// MaxMessageBytes bounds one incoming message (all its frames); a larger
	// one closes the connection with 1009 (message too big).
	MaxMessageBytes int64
	// MaxInFlight bounds the messages of one connection being answered at
	// once; at the limit the connection is not read until one finishes
	// (the client is slowed down by TCP flow control, nothing is refused).
	MaxInFlight int
	// MaxSubscriptions bounds the live subscriptions of one connection.
	MaxSubscriptions int
	// SendQueueBytes bounds the answers and notifications waiting for a
	// slow reader; past it the connection is closed with 1008.
	SendQueueBytes int
	// PingInterval is how often the server pings; a client that has sent
	// nothing (not even a pong) for PingInterval+PongTimeout is closed.
	PingInterval time.Duration
	PongTimeout  time.Duration
	// IdleTimeout closes a connection that has no subscription and has sent
	// no message for this long (1000, "idle timeout").
	IdleTimeout time.Duration
	// WriteTimeout bounds one write to the client.
	WriteTimeout time.Duration
	// ReadBufferBytes and WriteBufferBytes size the per-connection read
	// buffer and the pooled write buffers.
	ReadBufferBytes  int
	WriteBufferBytes int
}

// Default WebSocket limits.
const (
	DefaultWSMaxMessageBytes  = DefaultMaxBodyBytes
	DefaultWSMaxInFlight      = 128
	DefaultWSMaxSubscriptions = 1000
	DefaultWSSendQueueBytes   = 16 << 20
	DefaultWSPingInterval     = 30 * time.Second
	DefaultWSPongTimeout      = 30 * time.Second
	DefaultWSIdleTimeout      = 10 * time.Minute
	DefaultWSWriteTimeout     = 10 * time.Second
	DefaultWSReadBufferBytes  = 1024
	DefaultWSWriteBufferBytes = 4096
)

func (l WSLimits) withDefaults() WSLimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	dur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = DefaultWSMaxMessageBytes
	}
	def(&l.MaxInFlight, DefaultWSMaxInFlight)
	def(&l.MaxSubscriptions, DefaultWSMaxSubscriptions)
	def(&l.SendQueueBytes, DefaultWSSendQueueBytes)
	def(&l.ReadBufferBytes, DefaultWSReadBufferBytes)
	def(&l.WriteBufferBytes, DefaultWSWriteBufferBytes)
	dur(&l.PingInterval, DefaultWSPingInterval)
	dur(&l.PongTimeout, DefaultWSPongTimeout)
	dur(&l.IdleTimeout, DefaultWSIdleTimeout)
	dur(&l.WriteTimeout, DefaultWSWriteTimeout)
	return l
}
