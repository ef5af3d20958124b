package config

import "time"

// Shutdown is how a replica leaves a fleet on SIGTERM or SIGINT
// (docs/deploy.md): /ready answers 503 at once, the listeners keep serving
// for DrainDelay (so that load balancers stop sending), then until they
// were quiet for DrainQuiet, then stop accepting; that wait and the calls
// in flight share Timeout.
type Shutdown struct {
	// DrainDelay is how long the listeners keep serving after the signal,
	// with /ready at 503 (default 0: stop accepting at once; behind a load
	// balancer, at least its health-check interval times its fall count).
	DrainDelay time.Duration `yaml:"drain_delay"`
	// DrainQuiet: after DrainDelay, the listeners keep accepting until
	// they have had no request (health checks aside) for this long (a
	// balancer slower than DrainDelay has stopped sending); the wait and
	// the calls in flight share Timeout. Default 1s; 0 closes them when
	// DrainDelay ends.
	DrainQuiet time.Duration `yaml:"drain_quiet"`
	// Timeout bounds the wait for quiet and for calls in flight after
	// DrainDelay (default 15s).
	Timeout time.Duration `yaml:"timeout"`
}

func (s *Shutdown) validate(bad func(path, format string, a ...any)) {
	if s.DrainDelay < 0 {
		bad("shutdown.drain_delay", "must not be negative")
	}
	if s.DrainQuiet < 0 {
		bad("shutdown.drain_quiet", "must not be negative (0 closes the listeners when drain_delay ends)")
	}
	if s.Timeout <= 0 {
		bad("shutdown.timeout", "must be positive, got %s", s.Timeout)
	}
}
