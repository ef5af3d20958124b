package service

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/pipeline"
)

// listener is one client listener with its router.
type listener struct {
	network string // "" for the main listener
	ln      net.Listener
	srv     *http.Server
	ing     *ingress.Server
}

// listenAll opens the main listener (routing by Host, with the network
// that has neither hosts nor a listener as its default) and one listener
// per network that asks for its own.
func (s *Service) listenAll() error {
	nets := s.Config.EffectiveNetworks()
	main := ingress.NewRouter(nil)
	for i, nc := range nets {
		n := s.Networks[i]
		for _, h := range nc.Hosts {
			main.AddHost(h, n)
		}
		if len(nc.Hosts) == 0 && nc.Listen == "" {
			main.SetFallback(n)
		}
	}
	p := pipeline.Build(pipeline.Options{Observer: s.observer})
	if err := s.open("", s.Config.Listen, main, p); err != nil {
		return err
	}
	for i, nc := range nets {
		if nc.Listen == "" {
			continue
		}
		if err := s.open(nc.Name, nc.Listen, ingress.NewRouter(s.Networks[i]), p); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) open(network, addr string, r *ingress.Router, p *pipeline.Pipeline) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	ing := &ingress.Server{
		Keys: s.Keys, Router: r, Pipeline: p, Metering: s.observer.Metering(s.metering()),
		Limits:    ingress.Limits{MaxBodyBytes: s.Config.Limits.MaxBodyBytes, MaxBatch: s.Config.Limits.MaxBatch, WriteTimeout: s.Config.Limits.WriteTimeout},
		WebSocket: wsLimits(s.Config),
	}
	srv := &http.Server{
		Handler:           s.observeListener(ing.Handler(), r),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	s.listeners = append(s.listeners, &listener{network: network, ln: ln, srv: srv, ing: ing})
	serve := srv.Serve
	if s.tls != nil {
		// ServeTLS (not a tls listener) so that HTTP/2 is set up; the
		// certificate comes from the reloading source.
		srv.TLSConfig = ingress.ServerTLSConfig(s.tls)
		serve = func(l net.Listener) error { return srv.ServeTLS(l, "", "") }
	}
	go func() {
		if err := serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("http server stopped", "addr", addr, "err", err)
		}
	}()
	ing.SetReady(true)
	return nil
}

// Addr is the address the main client listener is bound to.
func (s *Service) Addr() string { return s.listeners[0].ln.Addr().String() }

// URL is the base URL of the main client listener (http:// or https://).
func (s *Service) URL() string { return s.scheme() + "://" + s.Addr() }

// NetworkURL is the base URL of a network's own listener, or "" when it
// has none (it is then reached on the main listener by its host names).
func (s *Service) NetworkURL(network string) string {
	for _, l := range s.listeners[1:] {
		if l.network == network {
			return s.scheme() + "://" + l.ln.Addr().String()
		}
	}
	return ""
}
