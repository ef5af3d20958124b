package service

import (
	"context"
	"net/http"
	"time"
)

// checkPaths are the paths balancers poll: a request on them is not
// traffic, and never delays the listeners' close (Quiesce).
func checkPath(path string) bool { return path == readyPath || path == "/health" }

// noteTraffic records, while draining, that a client sent a request other
// than a health check: Quiesce counts its quiet from the last one.
func (s *Service) noteTraffic(r *http.Request) {
	if s.draining.Load() && !checkPath(r.URL.Path) {
		s.lastTraffic.Store(time.Now().UnixNano())
	}
}

// DrainQuiet is how long the listeners must have had no request (health
// checks aside) before they close after the drain delay (the running
// configuration's shutdown.drain_quiet).
func (s *Service) DrainQuiet() time.Duration { return s.current().cfg.Shutdown.DrainQuiet }

// Quiesce waits, once the drain delay is over, until the client
// listeners have had no request (health checks aside) for DrainQuiet:
// until then a balancer slower than the delay still sends, and closing
// the listeners would refuse its connections (and reset those queued in
// the kernel). The quiet counts from Drain at the earliest. It returns at
// once when DrainQuiet is 0, and when ctx ends.
func (s *Service) Quiesce(ctx context.Context) {
	quiet := s.DrainQuiet()
	if quiet <= 0 {
		return
	}
	for {
		idle := time.Duration(time.Now().UnixNano() - s.lastTraffic.Load())
		if idle >= quiet {
			return
		}
		t := time.NewTimer(quiet - idle)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
