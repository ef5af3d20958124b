package keys

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/plan"
)

// TestStoredPlansCarryMethodLimits: a plan's own method limits are part of
// what the store keeps, so every replica grants the same eth_getLogs and
// gas-cap limits (they were each replica's own before the plan carried
// them).
func TestStoredPlansCarryMethodLimits(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open()
		plans := map[string]Plan{
			"team": {Name: "team", RatePerSecond: 10, Failover: true},
			"gold": {Name: "gold", MaxInFlight: 3, MethodLimits: plan.MethodLimits{GetLogsMaxResults: 5, GetLogsTimeout: 2 * time.Second, GasCapFactor: 20}},
		}
		if wrote, err := s.PublishPlans(ctx, plans); err != nil || !wrote {
			t.Fatalf("publish: wrote %v, %v", wrote, err)
		}
		got, err := s.StoredPlans(ctx)
		if err != nil || !reflect.DeepEqual(got, plans) {
			t.Fatalf("stored %+v (%v), want %+v", got, err, plans)
		}
		if wrote, err := s.PublishPlans(ctx, plans); err != nil || wrote {
			t.Fatalf("publishing the same plans again wrote %v, %v", wrote, err)
		}
		changed := map[string]Plan{"team": plans["team"], "gold": plans["gold"]}
		g := changed["gold"]
		g.GasCapFactor = 30
		changed["gold"] = g
		if wrote, err := s.PublishPlans(ctx, changed); err != nil || !wrote {
			t.Fatalf("a changed method limit is a changed plan: wrote %v, %v", wrote, err)
		}
	})
}
