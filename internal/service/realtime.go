package service

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/internal/upstream"
)

// startSubs makes a network's subscription hub over its pool: newHeads
// and logs are made from the pool's canonical chain where it keeps one by
// hash (EVM networks, whatever their members), other streams run on the
// member the pool ranks best among those that can push (the embedded node
// in process, ws(s):// upstreams over their own connection). A network
// with neither (a Starknet network of HTTP-only upstreams) has none, and
// eth_subscribe says so.
func (s *Service) startSubs(pool *upstream.Pool) *subs.Hub {
	if !pool.Subscribers() && !pool.Canon().Tracked() {
		return nil
	}
	h := subs.NewHub(subs.Options{}, pool)
	s.genMu.Lock()
	s.hubs = append(s.hubs, h)
	s.genMu.Unlock()
	return h
}

// wsLimits maps the config onto the ingress limits; a message may be as
// large as an HTTP body unless configured otherwise.
func wsLimits(cfg config.Config) ingress.WSLimits {
	w := cfg.WebSocket
	if w.MaxMessageBytes == 0 {
		w.MaxMessageBytes = cfg.Limits.MaxBodyBytes
	}
	return ingress.WSLimits{
		MaxMessageBytes: w.MaxMessageBytes, MaxInFlight: w.MaxInFlight, MaxSubscriptions: w.MaxSubscriptions,
		SendQueueBytes: w.SendQueueBytes, PingInterval: w.PingInterval, PongTimeout: w.PongTimeout,
		IdleTimeout: w.IdleTimeout, WriteTimeout: w.WriteTimeout,
		ReadBufferBytes: w.ReadBufferBytes, WriteBufferBytes: w.WriteBufferBytes,
	}
}

// closeRealtime closes the WebSocket clients and the subscription hubs.
func (s *Service) closeRealtime(ctx context.Context) {
	// Every listener's and generation's sockets drain at once: one
	// server's are not left taking messages while another's drain.
	var wg sync.WaitGroup
	for _, ing := range s.ingresses() {
		wg.Go(func() { ing.CloseWebSockets(ctx) })
	}
	wg.Wait()
	s.genMu.Lock()
	hubs := slices.Clone(s.hubs)
	s.genMu.Unlock()
	for _, h := range hubs {
		h.Close()
	}
}

// WSURL is the base WebSocket URL of the client listener (ws:// or wss://).
func (s *Service) WSURL() string {
	if s.tls != nil {
		return "wss://" + s.Addr()
	}
	return "ws://" + s.Addr()
}

// Ingress is the client-facing server (for figures such as open WebSockets).
func (s *Service) Ingress() *ingress.Server { return s.current().ings[0] }

func errTLS(err error) error { return fmt.Errorf("tls: %w", err) }
