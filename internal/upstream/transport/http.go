package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
)

// MaxResponseBytes bounds what nodegate reads from a node for one request.
const MaxResponseBytes = 128 << 20

// HTTP is a node reached over HTTP(S) JSON-RPC.
type HTTP struct {
	url     string
	name    string
	client  *http.Client
	headers map[string]string
	// lean serves plain-http URLs (h1.go); https goes through client.
	lean *h1Client
}

// NewHTTPWithHeaders makes an HTTP upstream that sends extra headers with
// every request (a partner's key in an Authorization header, say).
func NewHTTPWithHeaders(rawURL string, headers map[string]string) (*HTTP, error) {
	h, err := NewHTTP(rawURL)
	if err != nil {
		return nil, err
	}
	h.headers = headers
	if h.lean != nil {
		if err := h.lean.setHeaders(headers); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// NewHTTP makes an HTTP upstream. The URL may carry credentials or a key in
// its path; Name() shows only scheme and host.
func NewHTTP(rawURL string) (*HTTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("upstream url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("upstream url %q: scheme must be http or https", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("upstream url %q: no host", u.Redacted())
	}
	tr := &http.Transport{
		Proxy:               nil, // nodes are reached directly
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   u.Scheme == "https",
	}
	h := &HTTP{url: rawURL, name: u.Scheme + "://" + u.Host, client: &http.Client{Transport: tr}}
	if u.Scheme == "http" {
		h.lean = newH1Client(u)
	}
	return h, nil
}

// Name implements Upstream.
func (h *HTTP) Name() string { return h.name }

// Do implements Upstream.
func (h *HTTP) Do(ctx context.Context, body []byte) ([]byte, error) {
	if h.lean != nil {
		status, out, err := h.lean.do(ctx, body)
		if err != nil {
			return nil, &upstream.Error{Upstream: h.name, Err: err}
		}
		return h.checkStatus(status, out)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, &upstream.Error{Upstream: h.name, Err: err}
	}
	req.Header["Content-Type"] = []string{"application/json"}
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	setRequestHeaders(ctx, req.Header)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, &upstream.Error{Upstream: h.name, Err: err}
	}
	defer resp.Body.Close()
	out, err := readBody(resp)
	if err != nil {
		return nil, &upstream.Error{Upstream: h.name, Status: resp.StatusCode, Err: err}
	}
	return h.checkStatus(resp.StatusCode, out)
}

// checkStatus turns HTTP statuses that are node faults into errors.
func (h *HTTP) checkStatus(status int, out []byte) ([]byte, error) {
	if nodeFaultStatus(status) || (status != http.StatusOK && !looksLikeJSONRPC(out)) {
		return nil, &upstream.Error{Upstream: h.name, Status: status, Err: errors.New(http.StatusText(status))}
	}
	return out, nil
}

func readBody(resp *http.Response) ([]byte, error) {
	n := resp.ContentLength
	if n > MaxResponseBytes {
		return nil, fmt.Errorf("response of %d bytes is over the %d byte limit", n, MaxResponseBytes)
	}
	if n >= 0 {
		out := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, out); err != nil {
			return nil, fmt.Errorf("read response: %w", err)
		}
		return out, nil
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if len(out) > MaxResponseBytes {
		return nil, fmt.Errorf("response is over the %d byte limit", MaxResponseBytes)
	}
	return out, nil
}

// nodeFaultStatus: overload and server errors are the node's, whatever the body says.
func nodeFaultStatus(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests
}

// looksLikeJSONRPC accepts a non-200 answer that still carries a JSON-RPC
// body (some nodes answer errors with 4xx); 5xx and 429 are node faults.
func looksLikeJSONRPC(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && (b[0] == '{' || b[0] == '[') && bytes.Contains(b, []byte(`"jsonrpc"`))
}
