package customer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/logging"
)

//go:embed pages
var pageFiles embed.FS

// NetworkURL is one network a key may use, with the base URLs clients
// reach it at (scheme://host[:port], no path).
type NetworkURL struct {
	Name string
	// HeadMethod answers the network's head block's number, without
	// params (its family's: the curl line of a new key).
	HeadMethod string
	HTTP       string
	WS         string
}

// Options configure the dashboard.
type Options struct {
	Accounts *accounts.Service
	// Networks lists the served networks with their base URLs as a client
	// of request r reaches them.
	Networks func(r *http.Request) []NetworkURL
	// PageRate caps an account's (or a signed-out address's) dashboard
	// requests per minute.
	PageRate int
	// SecureCookies marks cookies Secure even on plain HTTP (a proxy in
	// front terminates TLS).
	SecureCookies bool
	// SessionMax is the session cookie's lifetime.
	SessionMax time.Duration
	// ClientAddr is the address of the client that sent r, read through
	// the trusted proxies (X-Forwarded-For, PROXY protocol) as the ingress
	// reads it; nil: the connection's peer.
	ClientAddr func(r *http.Request) netip.Addr
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Handler serves /dashboard/ on the client listener.
type Handler struct {
	opts Options
	mux  *http.ServeMux
	// api serves the JSON API (api.go): bearer tokens, never cookies.
	api   *http.ServeMux
	cap   *pageCap
	pages map[string]*pageTemplate
}

// maxForm bounds a dashboard request body.
const maxForm = 64 << 10

// Prefix is where the dashboard is served.
const Prefix = "/dashboard"

// New makes the dashboard's handler.
func New(opts Options) *Handler {
	h := &Handler{opts: opts, mux: http.NewServeMux(), cap: newPageCap(opts.PageRate), pages: loadPages()}
	h.routes()
	h.api = h.apiRoutes()
	return h
}

// visit is what a request carries through the handlers: the session when
// signed in, and the CSRF token its forms hold.
type visit struct {
	sess  *accounts.Session
	token string
	csrf  string
}

type visitKey struct{}

func visitOf(r *http.Request) *visit { return r.Context().Value(visitKey{}).(*visit) }

// ServeHTTP sets the security headers, loads the session, applies the
// request cap, checks CSRF on every state-changing request, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secure(w)
	if r.URL.Path == Prefix {
		http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
		return
	}
	if r.URL.Path == APIPrefix || strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
		h.serveAPI(w, r) // before any cookie is read
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	v := &visit{}
	if c, err := r.Cookie(sessionCookie); err == nil {
		sess, err := h.opts.Accounts.Authenticate(r.Context(), c.Value)
		switch {
		case err == nil:
			v.sess, v.token, v.csrf = &sess, c.Value, sessionCSRF(c.Value)
		case errors.Is(err, accounts.ErrNoSession):
			h.setCookie(w, r, sessionCookie, "", -1)
		default:
			h.storeError(w, r, err)
			return
		}
	}
	subject := accounts.AddressSubject(h.clientIP(r))
	if v.sess != nil {
		subject = v.sess.Account.ID
	}
	if !h.cap.allow(subject, v.sess != nil, h.now()) {
		w.Header().Set("Retry-After", "60")
		h.message(w, r, v, http.StatusTooManyRequests, "Too many requests", "This dashboard answers a limited number of requests per minute: wait a minute and try again.")
		return
	}
	if v.sess == nil && r.Method == http.MethodGet {
		v.csrf = h.anonCSRF(w, r)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		var tooLarge *http.MaxBytesError
		if err := r.ParseForm(); errors.As(err, &tooLarge) {
			h.message(w, r, v, http.StatusRequestEntityTooLarge, "Too large", fmt.Sprintf("This form is larger than the dashboard takes (%d KiB): send less.", maxForm>>10))
			return
		}
		if !h.checkCSRF(r, v) {
			h.message(w, r, v, http.StatusForbidden, "Refused", "This form came from another page or an old session (CSRF check failed): reload the page and send it again.")
			return
		}
	}
	ctx := context.WithValue(r.Context(), visitKey{}, v)
	if v.sess != nil {
		ctx = accounts.WithActor(ctx, v.sess.Login.Email) // the audit page's "who"
	}
	h.mux.ServeHTTP(w, r.WithContext(ctx))
}

// checkCSRF: the form's token must be the session's, or when signed out
// the CSRF cookie's; and the browser must not say the request came from
// another site.
func (h *Handler) checkCSRF(r *http.Request, v *visit) bool {
	if !sameOrigin(r) {
		return false
	}
	got := r.PostFormValue("csrf")
	if v.sess != nil {
		return tokenEqual(got, v.csrf)
	}
	c, err := r.Cookie(csrfCookie)
	if err != nil {
		return false
	}
	v.csrf = c.Value
	return tokenEqual(got, c.Value)
}

func (h *Handler) now() time.Time {
	if h.opts.Now != nil {
		return h.opts.Now()
	}
	return time.Now()
}

// storeError answers a failure of the store (never a customer's fault).
func (h *Handler) storeError(w http.ResponseWriter, r *http.Request, err error) {
	logStoreError(r, err)
	v, _ := r.Context().Value(visitKey{}).(*visit)
	if v == nil {
		v = &visit{}
	}
	h.message(w, r, v, http.StatusServiceUnavailable, "Unavailable", "The service could not reach its store: try again in a moment.")
}

// logStoreError logs a store failure (the answer names no store).
func logStoreError(r *http.Request, err error) {
	slog.Error("dashboard: store", "path", r.URL.Path, "err", logging.RedactURLs(err.Error()))
}

// access is what a route asks of its visitor.
type access int

const (
	// anyone: signed in or not.
	anyone access = iota
	// signedIn: any login, whatever its role (its own password).
	signedIn
	// canRead, canManage, canOwn: a login whose role grants
	// accounts.PermRead, PermManage or PermOwn for the account it acts for.
	canRead
	canManage
	canOwn
)

func (a access) String() string {
	return [...]string{"anyone", "signed-in", "read", "manage", "own"}[a]
}

// perm is the permission a role must grant for a.
func (a access) perm() (accounts.Permission, bool) {
	switch a {
	case canRead:
		return accounts.PermRead, true
	case canManage:
		return accounts.PermManage, true
	case canOwn:
		return accounts.PermOwn, true
	}
	return 0, false
}

// route is one dashboard route and what it asks of its visitor: the one
// table every route is in (a test goes over every route and role).
type route struct {
	pattern string
	access  access
	serve   func(http.ResponseWriter, *http.Request, *visit)
}

// guard serves a route after checking its access: without a session the
// browser goes to the sign-in page; a role that does not grant the
// route's permission is refused (403).
func (h *Handler) guard(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := visitOf(r)
		if rt.access != anyone {
			if v.sess == nil {
				http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
				return
			}
			if p, ok := rt.access.perm(); ok && !v.sess.Role.May(p) {
				h.message(w, r, v, http.StatusForbidden, "Not allowed",
					fmt.Sprintf("Your role (%s) may not do this on %s's account: ask its owner.", v.sess.Role, v.owner()))
				return
			}
		}
		rt.serve(w, r, v)
	}
}

// owner is the email of the account a visit acts for.
func (v *visit) owner() string { return v.sess.Account.Email }

// routeTable lists every route of the dashboard with its access.
func (h *Handler) routeTable() []route {
	return []route{
		{"GET " + Prefix + "/style.css", anyone, h.style},
		{"GET " + Prefix + "/{$}", anyone, h.home},
		{"GET " + Prefix + "/signin", anyone, h.signinPage},
		{"POST " + Prefix + "/signin", anyone, h.signin},
		{"GET " + Prefix + "/signup", anyone, h.signupPage},
		{"POST " + Prefix + "/signup", anyone, h.signup},
		{"POST " + Prefix + "/signout", anyone, h.signout},
		{"GET " + Prefix + "/forgot", anyone, h.forgotPage},
		{"POST " + Prefix + "/forgot", anyone, h.forgot},
		{"GET " + Prefix + "/reset", anyone, h.resetPage},
		{"POST " + Prefix + "/reset", anyone, h.reset},
		{"GET " + Prefix + "/password", signedIn, h.passwordPage},
		{"POST " + Prefix + "/password", signedIn, h.password},
		{"GET " + Prefix + "/keys", canRead, h.keysPage},
		{"POST " + Prefix + "/keys", canManage, h.createKey},
		{"GET " + Prefix + "/keys/{id}", canRead, h.keyPage},
		{"POST " + Prefix + "/keys/{id}", canManage, h.updateKey},
		{"GET " + Prefix + "/keys/{id}/created", canManage, h.createdPage},
		{"GET " + Prefix + "/keys/{id}/revoke", canManage, h.revokeConfirm},
		{"POST " + Prefix + "/keys/{id}/revoke", canManage, h.revokeKey},
		{"GET " + Prefix + "/keys/{id}/usage", canRead, h.keyUsage},
		{"GET " + Prefix + "/usage", canRead, h.accountUsage},
		{"GET " + Prefix + "/usage.csv", canRead, h.accountUsageCSV},
		{"GET " + Prefix + "/keys/{id}/usage.csv", canRead, h.keyUsageCSV},
		{"GET " + Prefix + "/analytics", canRead, h.accountAnalytics},
		{"GET " + Prefix + "/analytics.csv", canRead, h.accountAnalyticsCSV},
		{"GET " + Prefix + "/keys/{id}/analytics", canRead, h.keyAnalytics},
		{"GET " + Prefix + "/keys/{id}/analytics.csv", canRead, h.keyAnalyticsCSV},
		{"GET " + Prefix + "/plan", canRead, h.planPage},
		{"POST " + Prefix + "/plan/upgrade", canOwn, h.upgrade},
		{"POST " + Prefix + "/plan/request", canOwn, h.requestCustom},
		{"GET " + Prefix + "/members", canRead, h.membersPage},
		{"POST " + Prefix + "/members", canOwn, h.inviteMember},
		{"POST " + Prefix + "/members/{login}/role", canOwn, h.setMemberRole},
		{"POST " + Prefix + "/members/{login}/remove", canOwn, h.removeMember},
		{"GET " + Prefix + "/audit", canRead, h.auditPage},
		{"GET " + Prefix + "/alerts", canRead, h.alertsPage},
		{"POST " + Prefix + "/alerts", canManage, h.setAlerts},
		{"GET " + Prefix + "/tokens", canRead, h.tokensPage},
		{"POST " + Prefix + "/tokens", canManage, h.createToken},
		{"POST " + Prefix + "/tokens/{id}/revoke", canManage, h.revokeToken},
	}
}

func (h *Handler) routes() {
	for _, rt := range h.routeTable() {
		h.mux.HandleFunc(rt.pattern, h.guard(rt))
	}
	h.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		h.message(w, r, visitOf(r), http.StatusNotFound, "Not found", "There is no such page.")
	})
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request, _ *visit) {
	if visitOf(r).sess != nil {
		http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}

func (h *Handler) style(w http.ResponseWriter, r *http.Request, _ *visit) {
	b, err := pageFiles.ReadFile("pages/style.css")
	if err != nil {
		http.Error(w, "missing stylesheet", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}
