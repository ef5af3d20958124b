package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/internal/upstream"
)

// Service is a running nodegate.
type Service struct {
	Config config.Config
	// Node is the embedded node (nil with an external upstream).
	Node *evmnode.Node
	// Keys holds the accepted keys; GeneratedKey is set when none was
	// configured and one was made for this run.
	Keys         *keys.Static
	GeneratedKey string

	// SelfSignedPEM and SelfSignedPath hold the generated certificate
	// (tls.self_signed), for clients to trust.
	SelfSignedPEM  []byte
	SelfSignedPath string

	listener net.Listener
	http     *http.Server
	ingress  *ingress.Server
	upstream upstream.Upstream
	subs     *subs.Hub
	tls      *ingress.CertSource
	stopTLS  func()
}

// Start builds everything from cfg and starts serving. It returns once the
// service answers requests.
func Start(ctx context.Context, cfg config.Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration:\n%w", err)
	}
	s := &Service{Config: cfg}
	if err := s.startKeys(); err != nil {
		return nil, err
	}
	up, err := s.startUpstream(ctx)
	if err != nil {
		return nil, err
	}
	s.upstream = up
	if err := s.startTLS(ctx); err != nil {
		s.closeNode()
		return nil, err
	}
	network := &pipeline.Network{Name: "default", Family: methods.FamilyEVM, Methods: methods.NewTable(methods.FamilyEVM), Upstream: up}
	if s.Node != nil {
		network.ChainID = s.Node.ChainID()
	}
	s.ingress = &ingress.Server{
		Keys:     s.Keys,
		Network:  network,
		Pipeline: pipeline.Build(pipeline.Options{}),
		Limits:   ingress.Limits{MaxBodyBytes: cfg.Limits.MaxBodyBytes, MaxBatch: cfg.Limits.MaxBatch},
		// WebSocket: same pipeline; subscriptions from the network's hub.
		WebSocket: wsLimits(cfg),
		Subs:      s.startSubs(),
	}
	if err := s.listen(); err != nil {
		s.closeNode()
		return nil, err
	}
	s.ingress.SetReady(true)
	return s, nil
}

func (s *Service) startKeys() error {
	plain := s.Config.APIKeys
	if len(plain) == 0 {
		k, err := keys.Generate()
		if err != nil {
			return err
		}
		s.GeneratedKey = k
		plain = []string{k}
	}
	set, err := keys.NewStatic("team", plain...)
	if err != nil {
		return fmt.Errorf("api keys: %w", err)
	}
	s.Keys = set
	return nil
}

func (s *Service) startUpstream(ctx context.Context) (upstream.Upstream, error) {
	if s.Config.Upstream != "" {
		return newUpstream(s.Config.Upstream)
	}
	n, err := evmnode.Start(ctx, evmnode.Config{ChainDir: s.Config.Node.ChainDir, BlockTime: s.Config.Node.BlockTime})
	if err != nil {
		return nil, fmt.Errorf("embedded node: %w", err)
	}
	s.Node = n
	return upstream.Func{ID: "embedded", Fn: n.Do}, nil
}

func (s *Service) listen() error {
	ln, err := net.Listen("tcp", s.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.Config.Listen, err)
	}
	s.listener = ln
	s.http = &http.Server{
		Handler:           s.ingress.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	serve := s.http.Serve
	if s.tls != nil {
		// ServeTLS (not a tls listener) so that HTTP/2 is set up; the
		// certificate comes from GetCertificate.
		s.http.TLSConfig = ingress.ServerTLSConfig(s.tls)
		serve = func(l net.Listener) error { return s.http.ServeTLS(l, "", "") }
	}
	go func() {
		if err := serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("http server stopped", "err", err)
		}
	}()
	return nil
}

// Addr is the address the client listener is bound to.
func (s *Service) Addr() string { return s.listener.Addr().String() }

// URL is the base HTTP URL of the client listener.
func (s *Service) URL() string { return s.scheme() + "://" + s.Addr() }

// Close stops accepting requests, lets those in flight finish (up to the
// context's deadline) and stops the embedded node.
func (s *Service) Close(ctx context.Context) error {
	s.ingress.SetReady(false)
	err := s.http.Shutdown(ctx)
	s.closeRealtime(ctx)
	if s.stopTLS != nil {
		s.stopTLS()
	}
	s.closeNode()
	return err
}

func (s *Service) closeNode() {
	if s.Node != nil {
		if err := s.Node.Close(); err != nil {
			slog.Warn("embedded node close", "err", err)
		}
	}
}
