package config

import "time"

// Shutdown is how a replica leaves a fleet on SIGTERM or SIGINT
// (docs/deploy.md): /ready answers 503 at once, the listeners keep serving
// for DrainDelay (so that load balancers stop sending), then stop
// accepting; calls in flight get up to Timeout to finish.
type Shutdown struct {
	// DrainDelay is how long the listeners keep serving after the signal,
	// with /ready at 503 (default 0: stop accepting at once; behind a load
	// balancer, at least its health-check interval times its fall count).
	DrainDelay time.Duration `yaml:"drain_delay"`
	// Timeout bounds the wait for calls in flight after the listeners
	// close (default 15s).
	Timeout time.Duration `yaml:"timeout"`
}

func (s *Shutdown) validate(bad func(path, format string, a ...any)) {
	if s.DrainDelay < 0 {
		bad("shutdown.drain_delay", "must not be negative")
	}
	if s.Timeout <= 0 {
		bad("shutdown.timeout", "must be positive, got %s", s.Timeout)
	}
}
