package upstream

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Observer sees every attempt a pool makes (metrics, logs, traces:
// internal/telemetry). It must not decide anything.
type Observer interface {
	// StartAttempt is called before an attempt on member; the context it
	// returns is the attempt's (it may carry a span and request headers,
	// see WithRequestHeader).
	StartAttempt(ctx context.Context, pool, member string) context.Context
	// EndAttempt is called after it with the attempt's context, its
	// duration and its outcome (resp may be a node-fault answer).
	EndAttempt(ctx context.Context, pool, member string, d time.Duration, resp *jsonrpc.Response, err error)
}

// startAttempt begins an observed attempt on m when the pool has an
// Observer: the context it returns is the attempt's. endAttempt reports its
// outcome (resp is nil for an upstream batch). Both are no-ops without one.
func (p *Pool) startAttempt(ctx context.Context, m *Member) (context.Context, time.Time) {
	if p.Observer == nil {
		return ctx, time.Time{}
	}
	return p.Observer.StartAttempt(ctx, p.id, m.Name()), time.Now()
}

func (p *Pool) endAttempt(ctx context.Context, m *Member, start time.Time, resp *jsonrpc.Response, err error) {
	if p.Observer != nil {
		p.Observer.EndAttempt(ctx, p.id, m.Name(), time.Since(start), resp, err)
	}
}

// requestHeader is one extra header for the requests made under a context.
type requestHeader struct {
	name, value string
	next        *requestHeader
}

type requestHeaderKey struct{}

// WithRequestHeader returns a context under which HTTP upstreams send the
// header name: value with their request (a W3C traceparent, say). A name
// or value that could break the request's framing is ignored.
func WithRequestHeader(ctx context.Context, name, value string) context.Context {
	if name == "" || strings.ContainsAny(name, ": \t\r\n") || strings.ContainsAny(value, "\r\n\x00") {
		return ctx
	}
	prev, _ := ctx.Value(requestHeaderKey{}).(*requestHeader)
	return context.WithValue(ctx, requestHeaderKey{}, &requestHeader{name: name, value: value, next: prev})
}

// appendRequestHeaders appends the context's extra headers as HTTP/1.1 lines.
func appendRequestHeaders(ctx context.Context, b []byte) []byte {
	for h, _ := ctx.Value(requestHeaderKey{}).(*requestHeader); h != nil; h = h.next {
		b = append(b, h.name...)
		b = append(b, ": "...)
		b = append(b, h.value...)
		b = append(b, "\r\n"...)
	}
	return b
}

// setRequestHeaders sets the context's extra headers on a net/http request.
func setRequestHeaders(ctx context.Context, hdr http.Header) {
	for h, _ := ctx.Value(requestHeaderKey{}).(*requestHeader); h != nil; h = h.next {
		hdr.Set(h.name, h.value)
	}
}
