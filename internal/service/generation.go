package service

import (
	"net/http"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
)

// generation is what a reload replaces whole: the config, the networks,
// the metering with its credit costs, and one ingress server per client
// listener. Requests and WebSockets that started on a generation finish
// on it; new ones take the current one.
type generation struct {
	cfg      config.Config
	networks []*pipeline.Network
	ings     []*ingress.Server
	handlers []http.Handler
}

// current is the generation new requests are served by.
func (s *Service) current() *generation { return s.gen.Load() }

// Networks are the served networks with their pools: the current
// generation's (nil before Start). Networks live only in the generation, so
// a reload and a reader (the metrics scrape) never race.
func (s *Service) Networks() []*pipeline.Network {
	if g := s.current(); g != nil {
		return g.networks
	}
	return nil
}

// newGeneration builds the ingress servers of cfg over networks; nothing
// serves them until it is published.
func (s *Service) newGeneration(cfg config.Config, networks []*pipeline.Network) *generation {
	g := &generation{cfg: cfg, networks: networks}
	var metering ingress.Metering
	if s.Limiter != nil {
		metering = ingress.RateMeter{Meter: &ratelimit.Meter{Limiter: s.Limiter, Costs: ratelimit.NewCosts(cfg.Credits), Usage: s.Usage, Notes: s.Notes}}
	}
	p := pipeline.Build(pipeline.Options{Observer: s.observer})
	for _, r := range routers(cfg, networks) {
		ing := &ingress.Server{
			Keys: s.Keys, Router: r, Pipeline: p, Metering: s.observer.Metering(metering),
			Limits:    ingress.Limits{MaxBodyBytes: cfg.Limits.MaxBodyBytes, MaxBatch: cfg.Limits.MaxBatch, WriteTimeout: cfg.Limits.WriteTimeout},
			WebSocket: wsLimits(cfg), Admission: s.admission, TrustedProxies: trustedProxies(cfg),
		}
		g.handlers = append(g.handlers, s.observeListener(ing.Handler(), r))
		ing.SetReady(true)
		g.ings = append(g.ings, ing)
	}
	return g
}

// publish makes g the current generation; the ingress servers of every
// generation are kept until Close, for their WebSockets.
func (s *Service) publish(g *generation) {
	s.genMu.Lock()
	defer s.genMu.Unlock()
	s.allIngress = append(s.allIngress, g.ings...)
	s.gen.Store(g)
}

// ingresses are the ingress servers of every generation.
func (s *Service) ingresses() []*ingress.Server {
	s.genMu.Lock()
	defer s.genMu.Unlock()
	return append([]*ingress.Server(nil), s.allIngress...)
}
