package service

import (
	"encoding/json"
	"net/http"

	"github.com/nodegate/nodegate/internal/upstream"
)

// networkStatus is one network's pool as GET /admin/upstreams shows it.
type networkStatus struct {
	Network  string `json:"network"`
	BestHead uint64 `json:"best_head"`
	// SubscriptionsOn names the member the network's subscriptions run on
	// ("" when none does).
	SubscriptionsOn string                  `json:"subscriptions_on,omitempty"`
	Upstreams       []upstream.MemberStatus `json:"upstreams"`
	Partners        []upstream.MemberStatus `json:"partners,omitempty"`
}

// UpstreamsHandler serves every network's upstreams: head, lag, latency,
// health. It is mounted on the admin listener.
func (s *Service) UpstreamsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		nets := s.current().networks
		out := make([]networkStatus, 0, len(nets))
		for _, n := range nets {
			st := networkStatus{Network: n.Name, BestHead: n.Pool.BestHead(), Upstreams: n.Pool.Status()}
			if n.Subs != nil {
				st.SubscriptionsOn = n.Subs.Member()
			}
			if n.Partners != nil {
				st.Partners = n.Partners.Status()
			}
			out = append(out, st)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}
