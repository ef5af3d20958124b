package service

import (
	"log/slog"
	"net/http"
	"time"
)

// Drain starts leaving a fleet: /ready answers 503 from now on, and
// every answer asks its client to close the connection (Connection:
// close, closeWhileDraining), so that load balancers and keep-alive
// clients move to other replicas. An idle keep-alive connection is not
// closed under its client (which may be sending on it at that moment and
// would read EOF): its next request is answered, then it closes. The
// listeners keep serving until Close (the signal's path waits for
// DrainDelay, then Quiesce, first).
func (s *Service) Drain() {
	s.lastTraffic.Store(time.Now().UnixNano()) // the quiet counts from here at the earliest (Quiesce)
	if s.draining.Swap(true) {
		return
	}
	slog.Info("draining: /ready answers 503; listeners keep serving until shutdown", "drain_delay", s.DrainDelay())
}

// DrainDelay is how long the listeners keep serving after Drain (the
// running configuration's: SIGHUP changes it).
func (s *Service) DrainDelay() time.Duration { return s.current().cfg.Shutdown.DrainDelay }

// ShutdownTimeout is how long calls in flight get once the listeners stop
// (the running configuration's: SIGHUP changes it).
func (s *Service) ShutdownTimeout() time.Duration { return s.current().cfg.Shutdown.Timeout }

// closeWhileDraining asks the client of an answer given while draining to
// close its connection once it has the answer (net/http closes it after
// writing): a WebSocket upgrade is left as it is.
func (s *Service) closeWhileDraining(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() && r.Header.Get("Upgrade") == "" {
		w.Header().Set("Connection", "close")
	}
}
