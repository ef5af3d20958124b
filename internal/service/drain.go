package service

import (
	"log/slog"
	"time"
)

// Drain starts leaving a fleet: /ready answers 503 from now on, and
// responses ask clients to close their connections (Connection: close),
// so that load balancers and keep-alive clients move to other replicas.
// The listeners keep serving until Close.
func (s *Service) Drain() {
	if s.draining.Swap(true) {
		return
	}
	for _, l := range s.listeners {
		l.srv.SetKeepAlivesEnabled(false)
	}
	slog.Info("draining: /ready answers 503; listeners keep serving until shutdown", "drain_delay", s.DrainDelay())
}

// DrainDelay is how long the listeners keep serving after Drain (the
// running configuration's: SIGHUP changes it).
func (s *Service) DrainDelay() time.Duration { return s.current().cfg.Shutdown.DrainDelay }

// ShutdownTimeout is how long calls in flight get once the listeners stop
// (the running configuration's: SIGHUP changes it).
func (s *Service) ShutdownTimeout() time.Duration { return s.current().cfg.Shutdown.Timeout }
