package ingress

import (
	"net"
	"net/http"
	"sort"
	"strings"

	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Router chooses a request's network from its Host (docs/spec.md: each network
// has its own base address). A listener of a network's own has a router
// with only a fallback.
type Router struct {
	exact    map[string]*pipeline.Network
	suffixes []suffixRoute
	fallback *pipeline.Network
}

type suffixRoute struct {
	suffix string // ".example.com" for "*.example.com"
	n      *pipeline.Network
}

// NewRouter makes a router whose unknown hosts go to fallback (nil: they
// are refused).
func NewRouter(fallback *pipeline.Network) *Router {
	return &Router{exact: map[string]*pipeline.Network{}, fallback: fallback}
}

// AddHost routes a host name ("rpc.example.com" or "*.example.com") to n.
func (r *Router) AddHost(host string, n *pipeline.Network) {
	host = strings.ToLower(host)
	if suffix, ok := strings.CutPrefix(host, "*"); ok {
		r.suffixes = append(r.suffixes, suffixRoute{suffix: suffix, n: n})
		return
	}
	r.exact[host] = n
}

// Route returns the network for a Host header value.
func (r *Router) Route(hostport string) (*pipeline.Network, *jsonrpc.Error) {
	host := hostOnly(hostport)
	if n, ok := r.exact[host]; ok {
		return n, nil
	}
	for _, s := range r.suffixes {
		if strings.HasSuffix(host, s.suffix) && len(host) > len(s.suffix) {
			return s.n, nil
		}
	}
	if r.fallback != nil {
		return r.fallback, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "unknown network: no network is served at host " + quoteHost(host), Status: http.StatusNotFound}
}

// versionOf is n in the JSON-RPC version a /v3/<key>/rpc/<version> path
// names (pipeline.Network.Versions); a version n does not serve is 404.
func versionOf(n *pipeline.Network, version string) (*pipeline.Network, *jsonrpc.Error) {
	if vn := n.Version(version); vn != nil {
		return vn, nil
	}
	served := make([]string, 0, len(n.Versions))
	for v := range n.Versions {
		served = append(served, rpcVersionSegment+v)
	}
	sort.Strings(served)
	msg := "unknown JSON-RPC version: network " + n.Name + " serves no /rpc/" + version + " path"
	if len(served) > 0 {
		msg += " (it serves " + strings.Join(served, ", ") + " besides its default)"
	} else {
		msg += ": it speaks its default version only, at /v3/<key>"
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg, Status: http.StatusNotFound}
}

// Networks lists the distinct networks the router can choose.
func (r *Router) Networks() []*pipeline.Network {
	seen := map[*pipeline.Network]bool{}
	var out []*pipeline.Network
	add := func(n *pipeline.Network) {
		if n != nil && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	add(r.fallback)
	for _, n := range r.exact {
		add(n)
	}
	for _, s := range r.suffixes {
		add(s.n)
	}
	return out
}

// hostOnly strips the port and a trailing dot, and lowercases.
func hostOnly(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// quoteHost keeps a hostile Host header short and printable in the error.
func quoteHost(h string) string {
	if len(h) > 64 {
		h = h[:64] + "…"
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r > 0x7e {
			return '?'
		}
		return r
	}, h) + `"`
}

// SetFallback sets the network of hosts that match no name.
func (r *Router) SetFallback(n *pipeline.Network) { r.fallback = n }
