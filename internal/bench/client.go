package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// client posts bodies over keep-alive connections, one per worker at most.
type client struct {
	url string
	hc  *http.Client
	tr  *http.Transport
	// host overrides the Host header ("" keeps the URL's).
	host string
}

func newClient(u string, conns int, timeout time.Duration) *client {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &client{url: u, tr: tr, hc: &http.Client{Transport: tr, Timeout: timeout}}
}

func (c *client) close() { c.tr.CloseIdleConnections() }

type errKind int

const (
	errHTTP errKind = iota + 1
	errMalformed
)

// callError is an answer that arrived but is not a good one.
type callError struct {
	kind errKind
	msg  string
}

func (e *callError) Error() string { return e.msg }

var jsonType = []string{"application/json"}

// do posts one body and checks the answer: HTTP 200 and a JSON-RPC
// response per call. It returns how many calls were answered with an
// error object.
func (c *client) do(ctx context.Context, body []byte, batch int) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header["Content-Type"] = jsonType
	if c.host != "" {
		req.Host = c.host
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, &callError{kind: errHTTP, msg: fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, out)}
	}
	return checkAnswer(out, batch)
}

// checkAnswer verifies a response body: one response object, or an array
// of batch of them. It returns the number of error objects.
func checkAnswer(out []byte, batch int) (int, error) {
	if batch == 1 {
		_, r, err := jsonrpc.DecodeResponse(out)
		if err != nil {
			return 0, &callError{kind: errMalformed, msg: fmt.Sprintf("not a JSON-RPC response: %.200s", out)}
		}
		if r.Err != nil {
			return 1, nil
		}
		return 0, nil
	}
	var n, errs int
	var bad bool
	err := jsonrpc.Elements(out, func(elem []byte) bool {
		n++
		_, r, err := jsonrpc.DecodeResponse(elem)
		if err != nil {
			bad = true
			return false
		}
		if r.Err != nil {
			errs++
		}
		return true
	})
	if err != nil || bad || n != batch {
		return 0, &callError{kind: errMalformed, msg: fmt.Sprintf("not a JSON-RPC batch answer of %d responses: %.200s", batch, out)}
	}
	return errs, nil
}

// redactURL hides the key of a /v3/<key> URL and any password, so that
// results can be pasted into a report.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable url)"
	}
	out := u.Redacted()
	if i := strings.Index(u.Path, "/v3/"); i >= 0 {
		if key := u.Path[i+4:]; len(key) > 4 {
			out = strings.Replace(out, key, key[:4]+"…", 1)
		}
	}
	return out
}
