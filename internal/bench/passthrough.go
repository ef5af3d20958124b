package bench

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// Passthrough is a bare net/http reverse pass-through: every POST body is
// sent as is to one upstream and its answer copied back. It is the yardstick
// for a gateway's CPU per call: what forwarding alone costs.
type Passthrough struct {
	ln  net.Listener
	srv *http.Server
}

// StartPassthrough serves on addr, forwarding to upstreamURL.
func StartPassthrough(addr, upstreamURL string) (*Passthrough, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second, DisableCompression: true}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, StaticMaxBody))
		if err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, upstreamURL, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		req.Header["Content-Type"] = jsonType
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header()["Content-Type"] = jsonType
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(out)
	})
	p := &Passthrough{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the pass-through's address.
func (p *Passthrough) URL() string { return "http://" + p.ln.Addr().String() }

// Close stops the pass-through.
func (p *Passthrough) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.srv.Shutdown(ctx)
}
