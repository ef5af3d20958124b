package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/logging"
	"github.com/nodegate/nodegate/internal/observe"
	"github.com/nodegate/nodegate/internal/tracing"
)

// startObserve makes the service's observer (metrics always; the access
// log and traces when configured) and registers the live-state collector.
func (s *Service) startObserve() error {
	opts := observe.Options{Metrics: s.Metrics}
	if s.Config.Log.Access {
		lc := s.Config.Log
		lc.Level = "" // access lines are written whatever log.level says
		if lc.Output == nil {
			lc.Output = os.Stderr
		}
		s.accessOut = logging.NewBuffered(lc.Output, accessFlush)
		lc.Output = s.accessOut
		l, err := logging.New(lc)
		if err != nil {
			return fmt.Errorf("access log: %w", err)
		}
		opts.AccessLog = l
	}
	tr, err := tracing.FromEnv(context.Background(), "", s.Config.Tracing.TrustClientSampling)
	if err != nil {
		return fmt.Errorf("traces: %w", err)
	}
	if tr != nil {
		s.tracing = tr
		opts.Tracer, opts.Propagator = tr.Tracer, tr.Propagator
		slog.Info("traces exported with OTLP over HTTP (OTEL_* environment)")
	}
	s.observer = observe.New(opts)
	s.Metrics.Register(&observe.Live{
		Networks:   s.Networks,
		WebSockets: s.openWebSockets,
		Keys:       s.Keys,
	})
	return nil
}

// accessFlush is how often buffered access lines are written out.
const accessFlush = 100 * time.Millisecond

// observeListener wraps a client listener's handler with the observer's
// middleware (r routes Hosts to networks, for requests refused early).
func (s *Service) observeListener(h http.Handler, r *ingress.Router) http.Handler {
	return s.observer.Middleware(func(host string) string {
		if n, err := r.Route(host); err == nil {
			return n.Name
		}
		return ""
	}, h)
}

func (s *Service) openWebSockets() int64 {
	var n int64
	for _, ing := range s.ingresses() {
		n += int64(ing.OpenWebSockets())
	}
	return n
}

// startMetricsListener serves GET /metrics without a token on
// metrics.listen, when set (the admin listener's /metrics needs the token).
func (s *Service) startMetricsListener() error {
	addr := s.Config.Metrics.Listen
	if addr == "" {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.Metrics.Handler())
	var err error
	s.metricsListener, s.metricsHTTP, err = serveSide("metrics", "--metrics-listen (metrics.listen)", addr, mux)
	return err
}

// MetricsAddr is the metrics listener's address ("" when there is none).
func (s *Service) MetricsAddr() string {
	if s.metricsListener == nil {
		return ""
	}
	return s.metricsListener.Addr().String()
}

// closeObserve stops the metrics listener.
func (s *Service) closeObserve(ctx context.Context) error {
	var errs []error
	if s.metricsHTTP != nil {
		errs = append(errs, s.metricsHTTP.Shutdown(ctx))
	}
	if s.accessOut != nil {
		errs = append(errs, s.accessOut.Close())
	}
	if s.tracing != nil {
		errs = append(errs, s.tracing.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
