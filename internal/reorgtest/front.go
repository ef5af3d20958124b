package reorgtest

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
)

// RoundRobin is a front for a fleet: an HTTP reverse proxy on loopback
// that sends each request (each WebSocket connection) to the next of
// targets in turn, as a load balancer's round robin does. Targets are
// base URLs (scheme and host); the request's path is kept.
func RoundRobin(t testing.TB, targets []string) string {
	t.Helper()
	var proxies []*httputil.ReverseProxy
	for _, raw := range targets {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("front target %q: %v", raw, err)
		}
		proxies = append(proxies, httputil.NewSingleHostReverseProxy(u))
	}
	var next atomic.Uint64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[(next.Add(1)-1)%uint64(len(proxies))].ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}
