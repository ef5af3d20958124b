package pipeline

import (
	"context"
	"log/slog"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// failover forwards an eligible call (FailoverMethods) to the network's partners when the
// key's plan allows it (docs/spec.md, "Failover forwarding"). It returns nil when
// failover does not apply or the partners could not answer either.
func (r *Route) failover(ctx context.Context, c *Call, body []byte) *jsonrpc.Response {
	n := c.Network
	if n.Partners == nil || !r.FailoverMethods[c.Req.Method] || !failoverAllowed(c.Key) {
		return nil
	}
	// Without the rule: partners answer at their head, and a write goes to
	// one of them, never broadcast.
	resp, partner, err := n.Partners.Send(ctx, upstream.Call{Body: body, Idempotent: c.Rule.Idempotent})
	if err != nil {
		slog.Warn("partner failover failed", "network", n.Name, "method", methods.Label(c.Req.Method), "err", err)
		return nil
	}
	c.answered(partner, true)
	if r.Metrics != nil {
		r.Metrics.Failover.WithLabelValues(n.Name, partner, methods.Label(c.Req.Method)).Inc()
	}
	return resp
}

// failoverAllowed: the key's plan says (by default the upper tiers, team
// and enterprise, have failover).
func failoverAllowed(k *keys.Key) bool {
	return k != nil && k.Plan.Failover
}
