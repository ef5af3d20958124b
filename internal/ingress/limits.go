package ingress

// Limits bound what a client controls on the wire.
type Limits struct {
	// MaxBodyBytes bounds a request body (default 5 MiB).
	MaxBodyBytes int64
	// MaxBatch bounds the calls of one batch (default 1000).
	MaxBatch int
}

// Default limits.
const (
	DefaultMaxBodyBytes = 5 << 20
	DefaultMaxBatch     = 1000
)

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxBatch <= 0 {
		l.MaxBatch = DefaultMaxBatch
	}
	return l
}
