package ingress

import "time"

// Limits bound what a client controls on the wire.
type Limits struct {
	// MaxBodyBytes bounds a request body (default 5 MiB).
	MaxBodyBytes int64
	// MaxBatch bounds the calls of one batch (default 1000).
	MaxBatch int
	// WriteTimeout bounds each write of an answer to a client (default
	// 30s): a client that reads nothing for that long is disconnected.
	WriteTimeout time.Duration
}

// Default limits.
const (
	DefaultMaxBodyBytes = 5 << 20
	DefaultMaxBatch     = 1000
	// DefaultWriteTimeout is go-ethereum's HTTP write timeout.
	DefaultWriteTimeout = 30 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxBatch <= 0 {
		l.MaxBatch = DefaultMaxBatch
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultWriteTimeout
	}
	return l
}
