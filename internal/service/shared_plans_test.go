package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/nodegate/nodegate/internal/cli/planscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestPlansSharedByReplicas: plans live in the key store, and change only
// by the operator's `nodegate plans push`. Two replicas on one PostgreSQL
// start on the same plans; one reloads a file with a new core plan and
// neither changes what it grants (the store's stay the fleet's); the
// operator pushes that file and both grant it within key_refresh; a
// replica started later with the old file grants the store's plans and
// leaves them as they are.
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
	storedCore := func() int64 {
		stored, err := a.KeyStore.StoredPlans(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return stored[config.PlanCore].DailyCredits
	}

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
	if got, stored := grants(b), storedCore(); got != 3_000_000 || stored != 3_000_000 {
		t.Fatalf("after a reload of a changed file the replica grants %d and the store holds %d, want the store's 3000000 (no push)", got, stored)
	}

	// The operator's push of the new file.
	file := filepath.Join(t.TempDir(), "nodegate.yaml")
	raw, err := yaml.Marshal(map[string]any{"plans": map[string]config.Plan{config.PlanCore: core, config.PlanTeam: next.Plans[config.PlanTeam]}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := planscmd.Run([]string{"push", "--config", file, "--database-url", dsn}, &out, &errOut); code != 0 {
		t.Fatalf("nodegate plans push: exit %d: %s%s", code, out.String(), errOut.String())
	}
	testenv.WaitFor(t, 30*time.Second, "both replicas grant the pushed plan", func() bool { return grants(a) == 1234 && grants(b) == 1234 })
	if got := a.KeyManager.CurrentPlans()[config.PlanCore].DailyCredits; got != 1234 {
		t.Errorf("the other replica's key management checks plans with daily credits %d, want the store's 1234", got)
	}

	late := start(t, base()) // the old file: core at 3,000,000
	if stored := storedCore(); stored != 1234 {
		t.Fatalf("a replica started with an older file wrote core's daily credits back to %d", stored)
	}
	testenv.WaitFor(t, 30*time.Second, "the late replica grants the store's plans", func() bool { return grants(late) == 1234 })
	if grants(a) != 1234 || grants(b) != 1234 {
		t.Fatalf("the late replica's start moved the fleet: %d %d", grants(a), grants(b))
	}
}
