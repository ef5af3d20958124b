package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/telemetry"
)

// Service is a running nodegate.
type Service struct {
	Config config.Config
	// Node is the embedded node (nil with an external upstream).
	Node *evmnode.Node
	// Devnet is the embedded Starknet devnet (nil when no network uses it).
	Devnet *starknet.Devnet
	// Keys holds the accepted keys; GeneratedKey is set when none was
	// configured and one was made for this run.
	Keys         *keys.Static
	GeneratedKey string
	// Networks are the served networks with their pools.
	Networks []*pipeline.Network
	// Metrics is the service's Prometheus registry.
	Metrics *telemetry.Registry

	// listeners[0] is the main listener; then one per network that has its own.
	listeners []*listener
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
	s.Metrics = telemetry.New()
	for _, nc := range cfg.EffectiveNetworks() {
		n, err := s.buildNetwork(ctx, nc)
		if err != nil {
			s.closeNetworks()
			return nil, err
		}
		s.Networks = append(s.Networks, n)
	}
	if err := s.listenAll(); err != nil {
		s.closeNetworks()
		return nil, err
	}
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

// Close stops accepting requests, lets those in flight finish (up to the
// context's deadline) and stops the embedded node.
func (s *Service) Close(ctx context.Context) error {
	var errs []error
	for _, l := range s.listeners {
		l.ing.SetReady(false)
	}
	for _, l := range s.listeners {
		errs = append(errs, l.srv.Shutdown(ctx))
	}
	s.closeNetworks()
	return errors.Join(errs...)
}

func (s *Service) closeNetworks() {
	for _, n := range s.Networks {
		n.Pool.Close()
		if n.Partners != nil {
			n.Partners.Close()
		}
	}
	if s.Node != nil {
		if err := s.Node.Close(); err != nil {
			slog.Warn("embedded node close", "err", err)
		}
	}
	if s.Devnet != nil {
		if err := s.Devnet.Close(); err != nil {
			slog.Warn("embedded devnet close", "err", err)
		}
	}
}
