package service

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nodegate/nodegate/internal/cache"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/family"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
	"github.com/redis/go-redis/v9"
)

// buildNetwork makes a network's pool (starting the embedded node when it
// is one of the upstreams), its partners, its route and its stages, each
// from what the network's family answers (internal/family).
func (s *Service) buildNetwork(ctx context.Context, cfg config.Config, nc config.Network) (*pipeline.Network, error) {
	n, err := s.buildVersion(ctx, cfg, nc, "")
	if err != nil {
		return nil, err
	}
	for _, v := range family.Of(nc.Family).Versions(nc) {
		vn, err := s.buildVersion(ctx, cfg, nc, v)
		if err != nil {
			s.retire([]*pipeline.Network{n})
			return nil, fmt.Errorf("network %s, version %s: %w", nc.Name, v, err)
		}
		if n.Versions == nil {
			n.Versions = map[string]*pipeline.Network{}
		}
		n.Versions[v] = vn
	}
	return n, nil
}

// buildVersion builds nc reaching its nodes in the JSON-RPC version
// named version ("" its default): its own pool, stages and hub over the
// same configuration.
func (s *Service) buildVersion(ctx context.Context, cfg config.Config, nc config.Network, version string) (*pipeline.Network, error) {
	fam := family.Of(nc.Family)
	table := methods.NewTable(fam.Methods)
	table.MarkIdempotent(nc.IdempotentMethods)
	pcfg := poolConfig(nc.Pool)
	pcfg.HeadMethod, pcfg.NoNewHeads = fam.HeadMethod, !fam.FollowsNewHeads
	pcfg.HeadBlockMethod, pcfg.TxByHashMethod = fam.HeadBlockMethod, fam.TxByHashMethod
	pcfg.StateProbeMethod, pcfg.LogsProbeMethod = fam.StateProbeMethod, fam.LogsProbeMethod
	embedded := s.embedded(cfg)
	var members []upstream.MemberConfig
	for _, uc := range nc.Upstreams {
		u, err := fam.Member(ctx, embedded, nc, uc, table, version)
		if err != nil {
			return nil, fmt.Errorf("network %s: upstream %s: %w", nc.Name, uc.Name, err)
		}
		// Named as configured ({ name: local, url: embedded } is "local").
		mc := upstream.MemberConfig{Upstream: u, Name: uc.Name, Weight: uc.Weight, Priority: uc.Priority, BatchSize: fam.BatchSize(uc)}
		state, logs, stateSet, logsSet := uc.Floors() // how far back it serves, when the operator says
		mc.StateFrom, mc.LogsFrom = upstream.Floor{From: state, Set: stateSet}, upstream.Floor{From: logs, Set: logsSet}
		members = append(members, mc)
	}
	caches := fam.Caches && nc.Cache.On()
	pcfg.TrackFinalized = caches // the cache keeps only what is final
	pcfg.ChainIDMethod, pcfg.NumericChainID, pcfg.ChainID = fam.ChainIDMethod, fam.NumericChainID, nc.ChainID
	pcfg.NormalizeChainID = fam.NormalizeChainID
	if fam.Verify != nil {
		pcfg.Verify = fam.Verify(nc) // answers checked before they leave (docs/pools.md)
	}
	if fam.VerifyMore != nil {
		pcfg.VerifyMore = fam.VerifyMore(nc) // the receipts root, when asked for
	}
	pcfg.Quarantine = nc.Verify.Quarantine
	pool := upstream.NewPool(nc.Name, pcfg, members...)
	if s.Fleet != nil && version == "" {
		pool.ShareHeads(s.Fleet.Join(nc.Name, pool))
	}
	n := &pipeline.Network{
		Name: nc.Name, ChainID: nc.ChainID, Methods: table, Pool: pool,
		Route: &pipeline.Route{FailoverMethods: failoverMethods(nc.FailoverMethods), Metrics: s.Metrics},
	}
	if caches {
		c, err := s.newCache(nc, table)
		if err != nil {
			return nil, fmt.Errorf("network %s: %w", nc.Name, err)
		}
		n.Route.Cache = c
		pool.OnReorg = func(from, to uint64) { c.DropFrom(context.Background(), from, to) }
	}
	numeric := fam.NumericChainID
	if numeric && s.Node != nil && n.ChainID == 0 {
		n.ChainID = s.Node.ChainID()
	}
	if len(nc.Partners) > 0 {
		var partners []upstream.MemberConfig
		for _, pc := range nc.Partners {
			u, err := transport.NewHTTPWithHeaders(pc.URL, pc.Headers)
			if err != nil {
				return nil, fmt.Errorf("network %s: partner %s: %w", nc.Name, pc.Name, err)
			}
			partners = append(partners, upstream.MemberConfig{Upstream: u, Name: pc.Name})
		}
		ppcfg := poolConfig(nc.Pool)
		ppcfg.MaxLag = math.MaxUint64 // a partner's head is its own business
		ppcfg.Verify, ppcfg.VerifyMore, ppcfg.Quarantine = pcfg.Verify, pcfg.VerifyMore, pcfg.Quarantine
		n.Partners = upstream.NewPool(nc.Name+"-partners", ppcfg, partners...)
	}
	stages, err := fam.Stages(ctx, embedded, nc, pool)
	if err != nil {
		return nil, fmt.Errorf("network %s: %w", nc.Name, err)
	}
	n.Stages = stages
	n.Subs = s.startSubs(pool)
	s.watch(n)
	if numeric && n.ChainID == 0 {
		n.ChainID = pool.ChainID() // the first member's, checked at start
	}
	s.genMu.Lock()
	s.built = append(s.built, n)
	s.genMu.Unlock()
	return n, nil
}

// longestCallTimeout is the most generous plan's call_timeout: the
// embedded node's own limit, under which each plan's applies.
func (s *Service) longestCallTimeout() time.Duration {
	var longest time.Duration
	for _, p := range s.Config.PlanSet() {
		longest = max(longest, p.ExecutionTimeout())
	}
	return longest
}

// watch starts head tracking and reports health changes as metrics; the
// pool is given its observer (every attempt, internal/observe) and its
// health callback before it starts.
func (s *Service) watch(n *pipeline.Network) {
	for _, p := range []*upstream.Pool{n.Pool, n.Partners} {
		if p == nil {
			continue
		}
		p.Observer = s.observer
		p.OnChange = func(member string, healthy bool) {
			state, up := "down", 0.0
			if healthy {
				state, up = "up", 1
			}
			s.Metrics.UpstreamUp.WithLabelValues(n.Name, member).Set(up)
			s.Metrics.UpstreamChanges.WithLabelValues(n.Name, member, state).Inc()
		}
		p.OnVerifyFailed = func(member, check string) {
			s.Metrics.VerifyFailures.WithLabelValues(n.Name, member, check).Inc()
		}
		s.Metrics.Floors().Watch(n.Name, p) // each member's state and logs floors
		p.OnHedgeSent = func(member string) { s.Metrics.HedgesSent.WithLabelValues(n.Name, member).Inc() }
		p.OnHedgeWon = func(member string) { s.Metrics.HedgesWon.WithLabelValues(n.Name, member).Inc() }
		p.Start(context.Background())
		for _, st := range p.Status() {
			up := 0.0
			if st.Healthy {
				up = 1
			}
			s.Metrics.UpstreamUp.WithLabelValues(n.Name, st.Name).Set(up)
		}
	}
}

func poolConfig(c config.Pool) upstream.PoolConfig {
	return upstream.PoolConfig{
		MaxAttempts: c.MaxAttempts, RetryBudget: c.RetryBudget, AttemptTimeout: c.AttemptTimeout,
		FailThreshold: c.FailThreshold, HeadInterval: c.HeadInterval, ProbeInterval: c.ProbeInterval, MaxLag: c.MaxLag, LagMemory: c.LagMemory,
		HeadWait: c.HeadWait, NoBroadcast: !c.Broadcasts(), MethodRecheck: c.MethodRecheck,
		FloorProbe: c.FloorProbe,
		Hedge: upstream.HedgeConfig{Off: !c.Hedge.On(), Quantile: c.Hedge.Quantile, MinDelay: c.Hedge.MinDelay,
			Share: c.Hedge.MaxShare, Burst: c.Hedge.Burst, ExecutionShare: c.Hedge.ExecutionShare},
	}
}

// failoverMethods is the configured list, or the methods the method table
// marks eligible (docs/spec.md's three).
func failoverMethods(list []string) map[string]bool {
	m := map[string]bool{}
	if len(list) == 0 {
		list = methods.FailoverEligible()
	}
	for _, name := range list {
		m[name] = true
	}
	return m
}

// newCache makes a network's cache of final answers (docs/cache.md).
func (s *Service) newCache(nc config.Network, table *methods.Table) (*cache.Cache, error) {
	if s.cacheMetrics == nil {
		s.cacheMetrics = telemetry.NewCacheMetrics(s.Metrics)
	}
	opts := cache.Options{MaxBytes: nc.Cache.MaxBytes, Table: table, Methods: nc.Cache.Methods, RedisTTL: nc.Cache.RedisTTL,
		Stats: s.cacheMetrics.For(nc.Name), RedisPrefix: "nodegate:cache:" + nc.Name + ":"}
	if nc.Cache.RedisURL != "" {
		ro, err := redis.ParseURL(nc.Cache.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("cache redis_url: %w", err)
		}
		opts.Redis = redis.NewClient(ro)
	}
	return cache.New(opts)
}
