package service

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestPlansSharedByReplicas: plans live in the key store. Two replicas
// on one PostgreSQL start on the same plans; one reloads a new core plan
// and the other grants it within key_refresh; a replica started later
// with the old file writes the old plan back, and both apply it (the last
// writer wins): at no time do two replicas grant different things for
// longer than key_refresh.
func TestPlansSharedByReplicas(t *testing.T) {
	dsn := pgtest.DSN(t)
	base := func() config.Config {
		cfg := config.Ephemeral(t.TempDir())
		cfg.NoStarknet = true
		cfg.DatabaseURL = dsn
		return cfg
	}
	a := start(t, base())
	bcfg := base()
	b := start(t, bcfg)
	ctx := context.Background()
	c, err := a.KeyManager.Create(ctx, keys.CreateParams{Name: "shared", Plan: config.PlanCore})
	if err != nil {
		t.Fatal(err)
	}
	grants := func(s *Service) int64 {
		k, ok := s.Keys.ByID(c.ID)
		if !ok {
			return -1
		}
		return k.DailyCredits()
	}
	testenv.WaitFor(t, 30*time.Second, "both replicas know the key on the default core plan", func() bool {
		return grants(a) == 3_000_000 && grants(b) == 3_000_000
	})

	next := bcfg
	next.Plans = map[string]config.Plan{}
	for n, p := range bcfg.Plans {
		next.Plans[n] = p
	}
	core := next.Plans[config.PlanCore]
	core.DailyCredits = 1234
	next.Plans[config.PlanCore] = core
	if err := b.Reload(ctx, next); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 30*time.Second, "the other replica grants the reloaded plan", func() bool { return grants(a) == 1234 })
	if got := a.KeyManager.CurrentPlans()[config.PlanCore].DailyCredits; got != 1234 {
		t.Errorf("the other replica's key management checks plans with daily credits %d, want the store's 1234", got)
	}
	if grants(b) != 1234 {
		t.Errorf("the reloaded replica grants %d", grants(b))
	}

	late := start(t, base()) // the old file: core at 3,000,000
	testenv.WaitFor(t, 30*time.Second, "every replica applies the last writer's plans", func() bool {
		return grants(a) == 3_000_000 && grants(b) == 3_000_000 && grants(late) == 3_000_000
	})
}
