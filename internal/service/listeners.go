package service

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/pipeline"
)

// listener is one client listener. Its handler comes from the current
// generation (generation.go), so that a reload swaps it without closing
// the socket or any connection.
type listener struct {
	network string // "" for the main listener
	addr    string // as configured
	ln      net.Listener
	srv     *http.Server
}

// listenAddrs are the client listeners a config asks for: the main one,
// then one per network that has its own, with the network's name.
func listenAddrs(cfg config.Config) (names, addrs []string) {
	names, addrs = []string{""}, []string{cfg.Listen}
	for _, nc := range cfg.EffectiveNetworks() {
		if nc.Listen != "" {
			names, addrs = append(names, nc.Name), append(addrs, nc.Listen)
		}
	}
	return names, addrs
}

// routers makes each listener's router over networks (in the order of
// listenAddrs): the main listener routes by Host, with the network that
// has neither hosts nor a listener as its default.
func routers(cfg config.Config, networks []*pipeline.Network) []*ingress.Router {
	nets := cfg.EffectiveNetworks()
	main := ingress.NewRouter(nil)
	out := []*ingress.Router{main}
	for i, nc := range nets {
		n := networks[i]
		for _, h := range nc.Hosts {
			main.AddHost(h, n)
		}
		if len(nc.Hosts) == 0 && nc.Listen == "" {
			main.SetFallback(n)
		}
		if nc.Listen != "" {
			out = append(out, ingress.NewRouter(n))
		}
	}
	return out
}

// listenAll opens the client listeners of s.Config and serves the
// current generation on them.
func (s *Service) listenAll() error {
	names, addrs := listenAddrs(s.Config)
	for i, addr := range addrs {
		if err := s.open(names[i], addr, i); err != nil {
			if i > 0 && addr == config.DefaultStarknetListen && errors.Is(err, syscall.EADDRINUSE) {
				// Another nodegate on this machine has it: this one must
				// still start (its devnet stays reachable by Host).
				slog.Warn("the Starknet devnet's default listener is taken (another nodegate?): the devnet is served at Host: starknet.localhost on the main listener only; set --starknet-listen to give it its own",
					"listen", addr, "network", names[i])
				continue
			}
			if i == 0 {
				return fmt.Errorf("%w (set --listen (listen) to another address)", err)
			}
			return fmt.Errorf("%w (the listener of network %s: --starknet-listen for the embedded devnet, else networks[].listen)", err, names[i])
		}
	}
	return nil
}

func (s *Service) open(network, addr string, index int) error {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	cc := s.Config.Limits.Connections
	ln := ingress.LimitListener(raw, ingress.ConnLimits{MaxPerListener: cc.MaxPerListener, MaxPerIP: cc.PerIP()}, s.connBudget())
	guard := ingress.NewConnGuard(cc.KeylessIdle(), serverIdleTimeout, ln)
	srv := &http.Server{
		ConnContext: guard.ConnContext,
		ConnState:   guard.ConnState,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.closeWhileDraining(w, r)
			s.noteTraffic(r) // drain_quiet.go
			if r.URL.Path == readyPath {
				s.serveReady(w, r)
				return
			}
			if index == 0 && customerPath(r.URL.Path) {
				s.customer.ServeHTTP(w, r)
				return
			}
			s.current().handlers[index].ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       serverIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          serverErrorLog(addr),
	}
	s.listeners = append(s.listeners, &listener{network: network, addr: addr, ln: ln, srv: srv})
	serve := srv.Serve
	if s.tls != nil {
		// ServeTLS (not a tls listener) so that HTTP/2 is set up; the
		// certificate comes from the reloading source.
		srv.TLSConfig = ingress.ServerTLSConfig(s.tls)
		serve = func(l net.Listener) error { return srv.ServeTLS(l, "", "") }
	}
	served := ingress.ProxyProtocolListener(ln, s.currentTrustedProxies) // trusted_proxies' PROXY headers
	go func() {
		if err := serve(served); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("http server stopped", "addr", addr, "err", err)
		}
	}()
	return nil
}

// serverIdleTimeout is how long a client listener keeps an idle keyed
// connection while its bounds are less than half full (ConnGuard closes
// it sooner as they fill).
const serverIdleTimeout = 120 * time.Second

// connBudget is the connections all client listeners may hold together:
// RLIMIT_NOFILE less limits.connections.descriptor_reserve (made once).
func (s *Service) connBudget() *ingress.ConnBudget {
	if s.conns == nil {
		var rl syscall.Rlimit
		var nofile uint64
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil {
			nofile = rl.Cur
		}
		s.conns = ingress.NewConnBudget(s.Config.Limits.Connections.Budget(nofile))
		s.Metrics.Register(s.conns.Collectors()...)
		slog.Debug("client connections bounded", "max", s.conns.Max(), "rlimit_nofile", nofile)
	}
	return s.conns
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
