package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/subs"
)

// Reload applies a new configuration without closing a listener or a
// connection: plans, credits, limits, WebSocket limits, shutdown (the
// next stop's drain delay and timeout), and each network's hosts,
// upstreams, partners and pool settings. A network whose settings
// changed gets new pools; requests already running finish on the old ones,
// which close after shutdown.timeout. TLS files are re-read by their own
// watcher on SIGHUP; the log level is the caller's (cmd/nodegate).
//
// Settings that need a restart (listeners, stores, the embedded node, the
// admin token) refuse the whole reload; so does an invalid config. On any
// error the running configuration stays as it was.
func (s *Service) Reload(ctx context.Context, next config.Config) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if s.draining.Load() {
		return errors.New("draining: reload refused")
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}
	cur := s.current()
	if fields := restartOnly(cur.cfg, next); len(fields) > 0 {
		return fmt.Errorf("%s changed: these take effect only on a restart (nothing was applied)", strings.Join(fields, ", "))
	}
	oldCfgs := cur.cfg.EffectiveNetworks()
	var (
		networks []*pipeline.Network
		fresh    []*pipeline.Network
		retired  []*pipeline.Network
	)
	for i, nc := range next.EffectiveNetworks() {
		old := cur.networks[i]
		switch {
		case reflect.DeepEqual(oldCfgs[i], nc) && reflect.DeepEqual(cur.cfg.Limits, next.Limits):
			networks = append(networks, old)
		case reflect.DeepEqual(oldCfgs[i], nc):
			networks = append(networks, withLimits(old, next.Limits))
		default:
			n, err := s.buildNetwork(ctx, next, nc)
			if err != nil {
				s.retire(fresh)
				return err
			}
			fresh, retired = append(fresh, n), append(retired, old)
			networks = append(networks, n)
		}
	}
	if configured := next.PlanSet(); !reflect.DeepEqual(cur.cfg.PlanSet(), configured) {
		// The store's plans stay the fleet's: a file's only seeds a store
		// that holds none (keys/plans_store.go; `nodegate plans push`
		// changes them). One map for all three, as startKeys gives them.
		if err := keys.SeedPlans(ctx, s.KeyStore, configured); err != nil {
			s.retire(fresh)
			return err
		}
		plans, err := keys.PlansInForce(ctx, s.KeyStore, configured)
		if err != nil {
			s.retire(fresh)
			return err
		}
		if err := s.Keys.SetPlans(ctx, plans, config.PlanTeam); err != nil {
			s.retire(fresh)
			return err
		}
		if s.KeyManager != nil {
			s.KeyManager.SetPlans(plans) // the admin API creates keys on the new plans
		}
	}
	s.publish(s.newGeneration(next, networks))
	if len(retired) > 0 {
		grace := next.Shutdown.Timeout
		time.AfterFunc(grace, func() { s.retire(retired) })
	}
	slog.Info("configuration reloaded", "networks_rebuilt", len(fresh))
	return nil
}

// withLimits is old with other method limits: the stages that hold limits
// are made again; the pools, the route and every other stage are shared.
func withLimits(old *pipeline.Network, l config.Limits) *pipeline.Network {
	return old.WithLimits(limitsOf(l))
}

// retire closes networks that no generation serves any more (their pools,
// partners and subscription hub; never the embedded nodes).
func (s *Service) retire(nets []*pipeline.Network) {
	if len(nets) == 0 {
		return
	}
	all := slices.Clone(nets)
	for _, n := range nets {
		for _, vn := range n.Versions {
			all = append(all, vn) // built with n, retired with it
		}
	}
	nets = all
	s.genMu.Lock()
	for _, n := range nets {
		s.built = slices.DeleteFunc(s.built, func(b *pipeline.Network) bool { return b == n })
		if n.Subs != nil {
			s.hubs = slices.DeleteFunc(s.hubs, func(h *subs.Hub) bool { return h == n.Subs })
		}
	}
	s.genMu.Unlock()
	for _, n := range nets {
		closeNetwork(n)
		if n.Subs != nil {
			n.Subs.Close()
		}
	}
}

// allNetworks are the networks whose pools run.
func (s *Service) allNetworks() []*pipeline.Network {
	s.genMu.Lock()
	defer s.genMu.Unlock()
	return slices.Clone(s.built)
}

// restartOnly names the settings that differ between a and b and that a
// reload cannot apply.
func restartOnly(a, b config.Config) []string {
	var out []string
	diff := func(name string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, name)
		}
	}
	diff("listen", a.Listen, b.Listen)
	diff("data_dir", a.DataDir, b.DataDir)
	diff("api_keys", a.APIKeys, b.APIKeys)
	diff("database_url", a.DatabaseURL, b.DatabaseURL)
	diff("key_refresh", a.KeyRefresh, b.KeyRefresh)
	diff("admin", a.Admin, b.Admin)
	diff("rate_limit", a.RateLimit, b.RateLimit)
	diff("node", a.Node, b.Node)
	diff("no_starknet", a.NoStarknet, b.NoStarknet)
	diff("tls", a.TLS, b.TLS)
	diff("accounts", a.Accounts, b.Accounts)
	type shape struct{ name, family, listen string }
	shapes := func(c config.Config) []shape {
		var out []shape
		for _, n := range c.EffectiveNetworks() {
			out = append(out, shape{n.Name, n.Family, n.Listen})
		}
		return out
	}
	diff("networks (names, families or listeners)", shapes(a), shapes(b))
	return out
}
