package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nodegate/nodegate/internal/admin"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
)

// startKeys opens the key store and starts the in-memory cache that serves
// lookups.
func (s *Service) startKeys(ctx context.Context) error {
	store, err := keys.OpenStore(ctx, keyconfig.Store(&s.Config))
	if err != nil {
		return err
	}
	// The configuration's plans are the seed of the store's, which every
	// replica grants; a store that holds plans keeps them
	// (keys/plans_store.go).
	if err := keys.SeedPlans(ctx, store, s.Config.PlanSet()); err != nil {
		store.Close()
		return err
	}
	plans, err := keys.PlansInForce(ctx, store, s.Config.PlanSet())
	if err != nil {
		store.Close()
		return err
	}
	s.KeyStore = store
	s.KeyManager = &keys.Manager{Store: store, Plans: plans}
	cache, err := keys.NewCache(ctx, store, plans, config.PlanTeam, s.Config.APIKeys, keys.CacheOptions{Poll: s.Config.KeyRefresh, Tokens: keyconfig.Tokens(&s.Config)})
	if err != nil {
		store.Close()
		return err
	}
	s.Keys = cache
	s.KeyManager.Source = cache
	s.KeyManager.Local = cache // a change made through this replica applies here at once
	return nil
}

// startFirstKey creates the first key of a fresh installation (no
// api_keys, an empty store). It runs once the listeners are bound, so that
// a start that fails (a busy port) creates nothing; and the key is
// announced before it is stored, so that a process killed meanwhile has
// either shown it or stored nothing. Then the cache reloads, so that the
// key works as soon as Start returns.
func (s *Service) startFirstKey(ctx context.Context) error {
	if len(s.Config.APIKeys) > 0 {
		return nil
	}
	c, created, err := s.KeyManager.EnsureDefault(ctx, config.PlanTeam, "default", s.announceKey)
	if err != nil {
		return fmt.Errorf("key store %s: %w", s.KeyStore.Describe(), err)
	}
	if !created {
		return nil
	}
	s.GeneratedKey = c.Key
	slog.Info("created the first API key (printed once; kept only as a hash)", "key_id", c.ID, "plan", c.Plan, "store", s.KeyStore.Describe())
	return s.Keys.Refresh(ctx)
}

// startAdmin serves the admin API on its own listener (admin.listen) when
// a token is configured. Other features add their routes with
// s.Admin.Handle before or after it starts.
func (s *Service) startAdmin() error {
	token := s.Config.AdminToken()
	s.Admin = admin.New(token)
	admin.RegisterKeys(s.Admin, s.KeyManager)
	admin.RegisterAccounts(s.Admin, s.Accounts)
	s.Admin.Handle("/admin/upstreams", s.UpstreamsHandler())
	s.Admin.Handle("GET /metrics", s.Metrics.Handler())
	admin.RegisterDashboard(s.Admin)
	if s.Config.Admin.Listen == "" {
		return nil
	}
	if token == "" {
		// Without a token the API would refuse everything: not binding
		// leaves the port to another instance on the same machine.
		slog.Info("admin API off: set admin.token or $NODEGATE_ADMIN_TOKEN (16+ characters) to serve it", "listen", s.Config.Admin.Listen)
		return nil
	}
	var err error
	s.adminListener, s.adminHTTP, err = serveSide("admin", "--admin-listen (admin.listen)", s.Config.Admin.Listen, s.Admin)
	return err
}

// AdminAddr is the admin listener's address ("" when disabled).
func (s *Service) AdminAddr() string {
	if s.adminListener == nil {
		return ""
	}
	return s.adminListener.Addr().String()
}

// closeKeys stops the admin listener, the key cache and the store.
func (s *Service) closeKeys(ctx context.Context) error {
	var err error
	if s.adminHTTP != nil {
		err = s.adminHTTP.Shutdown(ctx)
	}
	if s.Keys != nil {
		s.Keys.Close()
	}
	if s.KeyStore != nil {
		if cerr := s.KeyStore.Close(); cerr != nil {
			slog.Warn("key store close", "err", cerr)
		}
	}
	return err
}
