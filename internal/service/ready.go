package service

import (
	"encoding/json"
	"net/http"

	"github.com/nodegate/nodegate/internal/upstream"
)

// readyPath is the readiness route of every client listener.
const readyPath = "/ready"

// readyStatus is the body of GET /ready.
type readyStatus struct {
	Status string `json:"status"`
	// Networks names the networks without an upstream in service.
	Networks []string `json:"networks,omitempty"`
}

// Ready reports whether the service should get traffic: not draining, and
// every network has at least one upstream in service. down names the
// networks that have none.
func (s *Service) Ready() (ok, draining bool, down []string) {
	if s.draining.Load() {
		return false, true, nil
	}
	for _, n := range s.current().networks {
		if !anyHealthy(n.Pool.Status()) {
			down = append(down, n.Name)
		}
	}
	return len(down) == 0, false, down
}

// serveReady answers GET /ready: 200 {"status":"ready"}; 503 with the
// networks that have no upstream in service, or {"status":"draining"}.
func (s *Service) serveReady(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ok, draining, down := s.Ready()
	st, code := readyStatus{Status: "ready"}, http.StatusOK
	switch {
	case draining:
		st, code = readyStatus{Status: "draining"}, http.StatusServiceUnavailable
	case !ok:
		st, code = readyStatus{Status: "unavailable", Networks: down}, http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

func anyHealthy(members []upstream.MemberStatus) bool {
	for _, m := range members {
		if m.Healthy {
			return true
		}
	}
	return false
}
