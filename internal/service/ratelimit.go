package service

import (
	"context"
	"errors"

	"github.com/nodegate/nodegate/internal/fleethead"
	"github.com/nodegate/nodegate/internal/ratelimit"
)

// startMetering starts the rate limiter (memory, or Redis when
// configured), the usage records, which the key store keeps, and the
// notification accounts, which spend in both; with Redis, also the
// fleet's shared heads. Each
// generation prices calls with its own credit costs (generation.go).
func (s *Service) startMetering() error {
	rc := s.Config.RateLimit
	lim, err := ratelimit.New(ratelimit.Options{RedisURL: rc.RedisURL, Prefix: rc.RedisPrefix, Timeout: rc.RedisTimeout, Heartbeat: rc.Heartbeat})
	if err != nil {
		return err
	}
	s.Limiter = lim
	s.Metrics.Register(lim.Collectors()...)
	s.Usage = ratelimit.NewUsage(s.KeyStore, rc.UsageFlush)
	s.Notes = ratelimit.NewNotes(lim, s.Usage, 0)
	if rc.RedisURL != "" {
		// The fleet's heads go through the same Redis (docs/pools.md).
		if s.Fleet, err = fleethead.New(fleethead.Options{RedisURL: rc.RedisURL, Prefix: rc.RedisPrefix, Timeout: rc.RedisTimeout}); err != nil {
			return err
		}
	}
	return nil
}

// closeMetering saves the last usage counts (before the key store
// closes) and leaves the fleet's replica count.
func (s *Service) closeMetering(ctx context.Context) error {
	var errs []error
	s.Notes.Close(ctx) // its last counts go to the usage records
	if s.Usage != nil {
		errs = append(errs, s.Usage.Close(ctx))
	}
	if s.Limiter != nil {
		errs = append(errs, s.Limiter.Close())
	}
	return errors.Join(errs...)
}
