package service

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/customer"
	"github.com/nodegate/nodegate/internal/family"
)

// startAccounts makes the customer accounts (kept in the key store) and
// the customer dashboard served at /dashboard/ on the main client
// listener (docs/dashboard.md).
func (s *Service) startAccounts() error {
	ac := s.Config.EffectiveAccounts()
	opts := accounts.OptionsOf(&s.Config)
	svc, err := accounts.New(s.KeyManager, opts)
	if err != nil {
		return err
	}
	s.Accounts = svc
	s.customer = customer.New(customer.Options{Accounts: svc, Networks: s.customerNetworks, PageRate: ac.PageRate,
		SecureCookies: strings.HasPrefix(ac.PublicURL, "https://"), SessionMax: ac.SessionMax,
		ClientAddr: s.clientAddr})
	ctx, cancel := context.WithCancel(context.Background())
	s.stopAccounts = cancel
	go purgeSessions(ctx, svc)
	go runAlerts(ctx, svc)
	slog.Debug("customer dashboard", "path", customer.Prefix+"/", "signup", ac.Signup)
	return nil
}

// purgeSessions deletes ended sessions now and then (any replica may).
func purgeSessions(ctx context.Context, svc *accounts.Service) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := svc.PurgeSessions(pctx); err != nil && ctx.Err() == nil {
			slog.Debug("purge sessions", "err", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// alertEvery is how often a replica checks the accounts' credits against
// their alert thresholds and tries the due deliveries.
const alertEvery = 5 * time.Second

// runAlerts checks alerts and delivers them now and then (every replica
// does: a crossing is claimed once in the store, a delivery leased).
func runAlerts(ctx context.Context, svc *accounts.Service) {
	t := time.NewTicker(alertEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		actx, cancel := context.WithTimeout(ctx, time.Minute)
		if _, err := svc.CheckAlerts(actx); err != nil && ctx.Err() == nil {
			slog.Warn("alerts: check", "err", err)
		}
		if _, err := svc.DeliverDue(actx); err != nil && ctx.Err() == nil {
			slog.Warn("alerts: deliver", "err", err)
		}
		cancel()
	}
}

// customerPath reports whether a main-listener request is the dashboard's.
func customerPath(p string) bool {
	return p == customer.Prefix || strings.HasPrefix(p, customer.Prefix+"/")
}

// clientSchemes are the schemes clients reach the service with: https
// and wss when it serves TLS itself, the request came over TLS, or the
// public URL says a proxy in front terminates it.
func clientSchemes(tls bool, publicURL string) (httpScheme, wsScheme string) {
	if tls || strings.HasPrefix(publicURL, "https://") {
		return "https", "wss"
	}
	return "http", "ws"
}

// customerNetworks are the served networks with the base URLs a client of
// r reaches them at: the request's own host on the main listener's
// default network, a network's first host name (wildcards cannot be
// called), or the request's host name with a network's own port.
func (s *Service) customerNetworks(r *http.Request) []customer.NetworkURL {
	cfg := s.current().cfg
	httpScheme, wsScheme := clientSchemes(s.tls != nil || r.TLS != nil, cfg.EffectiveAccounts().PublicURL)
	reqHost, reqPort := r.Host, ""
	if h, p, err := net.SplitHostPort(r.Host); err == nil {
		reqHost, reqPort = h, p
	}
	withPort := func(host, port string) string {
		if port == "" {
			return host
		}
		return net.JoinHostPort(host, port)
	}
	var out []customer.NetworkURL
	for _, nc := range cfg.EffectiveNetworks() {
		var base string
		switch {
		case nc.Listen != "":
			u := s.NetworkURL(nc.Name)
			if u == "" {
				continue // its listener could not open (another nodegate has it)
			}
			_, port, _ := net.SplitHostPort(u[strings.Index(u, "://")+3:])
			base = withPort(reqHost, port)
		case len(nc.Hosts) > 0:
			for _, h := range nc.Hosts {
				if !strings.HasPrefix(h, "*") {
					base = withPort(h, reqPort)
					break
				}
			}
		default:
			base = r.Host
		}
		if base == "" {
			continue
		}
		out = append(out, customer.NetworkURL{Name: nc.Name, HeadMethod: family.Of(nc.Family).HeadMethod, HTTP: httpScheme + "://" + base, WS: wsScheme + "://" + base})
	}
	return out
}
