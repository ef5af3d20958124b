package service

import (
	"context"
	"errors"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/ratelimit"
)

// startMetering starts the rate limiter (memory, or Redis when
// configured) and the usage records, which the key store keeps.
func (s *Service) startMetering() error {
	rc := s.Config.RateLimit
	lim, err := ratelimit.New(ratelimit.Options{RedisURL: rc.RedisURL, Prefix: rc.RedisPrefix, Timeout: rc.RedisTimeout, Heartbeat: rc.Heartbeat})
	if err != nil {
		return err
	}
	s.Limiter = lim
	s.Metrics.Register(lim.Collectors()...)
	s.Usage = ratelimit.NewUsage(s.KeyStore, rc.UsageFlush)
	s.Meter = &ratelimit.Meter{Limiter: lim, Costs: ratelimit.NewCosts(s.Config.Credits), Usage: s.Usage}
	return nil
}

// metering is the ingress hook (nil interface when metering is off).
func (s *Service) metering() ingress.Metering {
	if s.Meter == nil {
		return nil
	}
	return s.Meter
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
