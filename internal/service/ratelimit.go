package service

import (
	"context"
	"errors"

	"github.com/nodegate/nodegate/internal/ratelimit"
)

// startMetering starts the rate limiter (memory, or Redis when
// configured) and the usage records, which the key store keeps. Each
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
	return nil
}

// closeMetering saves the last usage counts (before the key store
// closes) and leaves the fleet's replica count.
func (s *Service) closeMetering(ctx context.Context) error {
	var errs []error
	if s.Usage != nil {
		errs = append(errs, s.Usage.Close(ctx))
	}
	if s.Limiter != nil {
		errs = append(errs, s.Limiter.Close())
	}
	return errors.Join(errs...)
}
