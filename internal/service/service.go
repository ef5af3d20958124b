package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/admin"
	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/fleethead"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/logging"
	"github.com/nodegate/nodegate/internal/observe"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/tracing"
)

// Service is a running nodegate.
type Service struct {
	Config config.Config
	// admission counts each key's use of its plan's per-key caps (calls
	// in flight, WebSockets, subscriptions, execution turns) once per
	// process: every listener's and generation's ingress server and every
	// network's execution stage share it.
	admission *admission.Keys
	// conns is what the client listeners may hold together (connBudget).
	conns *ingress.ConnBudget
	// Node is the embedded node (nil with an external upstream).
	Node *evmnode.Node
	// Devnet is the embedded Starknet devnet (nil when no network uses it).
	Devnet *devnet.Devnet
	// Keys serves key lookups from memory; KeyStore and KeyManager are the
	// persistent side. GeneratedKey is set on a fresh installation's first
	// start (no api_keys, empty store), when the first key was created:
	// later starts reuse that key, which the store keeps only as a hash.
	Keys         *keys.Cache
	KeyStore     keys.Store
	KeyManager   *keys.Manager
	GeneratedKey string
	// Admin is the admin API; register extra routes with Admin.Handle.
	Admin *admin.Server
	// Accounts are the customer accounts; customer serves their
	// dashboard on the main listener (accounts.go).
	Accounts     *accounts.Service
	customer     http.Handler
	stopAccounts context.CancelFunc
	// Metrics is the service's Prometheus registry.
	Metrics *telemetry.Registry
	// Limiter and Usage enforce rate limits and daily credits and keep
	// usage records (internal/ratelimit), Notes charges subscription
	// notifications to both; each generation has its Meter.
	Limiter *ratelimit.Limiter
	Usage   *ratelimit.Usage
	Notes   *ratelimit.Notes
	// Fleet shares each network's head with the other replicas on the
	// rate limit's Redis (internal/fleethead; nil without Redis).
	Fleet *fleethead.Fleet
	// cacheMetrics are the networks' answer caches' metrics (network.go).
	cacheMetrics *telemetry.CacheMetrics

	// LocalCA is tls.self_signed's certificate authority, kept in
	// <data_dir>/tls: clients trust its Path once (nil otherwise).
	LocalCA *ingress.LocalCA

	announceKey func(keys.Created)

	tls     *ingress.CertSource
	stopTLS func()
	hubs    []*subs.Hub

	adminListener net.Listener
	adminHTTP     *http.Server
	// observer, metricsListener and metricsHTTP: observe.go.
	observer        *observe.Observer
	metricsListener net.Listener
	metricsHTTP     *http.Server
	accessOut       *logging.Buffered
	tracing         *tracing.Tracing
	// gen is the current generation (generation.go); allIngress are the
	// ingress servers of every generation, for their WebSockets.
	gen        atomic.Pointer[generation]
	genMu      sync.Mutex
	allIngress []*ingress.Server
	// built are the networks whose pools run (every generation's, until
	// a reload retires them).
	built []*pipeline.Network
	// draining is set by Drain: /ready answers 503 from then on.
	draining atomic.Bool
	// lastTraffic is when a client last sent a request while draining
	// (unix ns; drain_quiet.go).
	lastTraffic atomic.Int64
	// reloadMu makes reloads one at a time.
	reloadMu sync.Mutex

	closeOnce sync.Once
	closeErr  error

	// listeners[0] is the main listener; then one per network that has its own.
	listeners []*listener
}

// Start builds everything from cfg and starts serving. It returns once the
// service answers requests.
func Start(ctx context.Context, cfg config.Config) (*Service, error) {
	return StartAnnouncing(ctx, cfg, nil)
}

// StartAnnouncing is Start, and a fresh installation's first key is given
// to announce before it is stored (see startFirstKey): the caller shows it
// at once, so that no later failure or kill can lose it.
func StartAnnouncing(ctx context.Context, cfg config.Config, announce func(keys.Created)) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration:\n%w", err)
	}
	s := &Service{Config: cfg, Metrics: telemetry.New(), announceKey: announce, admission: admission.NewWithSlots(executionShare(), executionSlots())}
	if err := s.startKeys(ctx); err != nil {
		return nil, err
	}
	if err := s.startAccounts(); err != nil {
		s.closeKeys(ctx)
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Close(shutdown)
		return nil, err
	}
	return s, nil
}

func (s *Service) start(ctx context.Context) error {
	if err := s.startMetering(); err != nil {
		return err
	}
	if err := s.startObserve(); err != nil {
		return err
	}
	if err := s.startTLS(ctx); err != nil {
		return err
	}
	var networks []*pipeline.Network
	for _, nc := range s.Config.EffectiveNetworks() {
		n, err := s.buildNetwork(ctx, s.Config, nc)
		if err != nil {
			return err
		}
		networks = append(networks, n)
	}
	s.publish(s.newGeneration(s.Config, networks))
	if err := s.listenAll(); err != nil {
		return err
	}
	if err := s.startMetricsListener(); err != nil {
		return err
	}
	if err := s.startAdmin(); err != nil {
		return err
	}
	return s.startFirstKey(ctx)
}

// Close stops accepting requests, lets those in flight finish (up to the
// context's deadline) and stops the nodes and the key store. Later calls
// return the first call's result.
func (s *Service) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { s.closeErr = s.close(ctx) })
	return s.closeErr
}

func (s *Service) close(ctx context.Context) error {
	var errs []error
	s.draining.Store(true)
	for _, ing := range s.ingresses() {
		ing.SetReady(false)
	}
	// WebSocket calls in flight and HTTP requests in flight finish side
	// by side, within the one shutdown.timeout (ctx).
	realtime := make(chan struct{})
	go func() { s.closeRealtime(ctx); close(realtime) }()
	for _, l := range s.listeners {
		errs = append(errs, l.srv.Shutdown(ctx))
	}
	<-realtime
	if s.stopTLS != nil {
		s.stopTLS()
	}
	s.closeNetworks()
	if s.Fleet != nil {
		errs = append(errs, s.Fleet.Close())
	}
	if s.stopAccounts != nil {
		s.stopAccounts()
	}
	errs = append(errs, s.closeObserve(ctx), s.closeMetering(ctx), s.closeKeys(ctx))
	return errors.Join(errs...)
}

func (s *Service) closeNetworks() {
	for _, n := range s.allNetworks() {
		closeNetwork(n)
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

// closeNetwork stops a network's pools and closes its connections.
func closeNetwork(n *pipeline.Network) {
	n.Pool.Close()
	if n.Partners != nil {
		n.Partners.Close()
	}
	for _, m := range n.Pool.Members() {
		if c, ok := m.Upstream.(interface{ Close() }); ok {
			c.Close() // ws(s):// upstreams hold a connection
		}
	}
}
