package transport

import (
	"context"
	"net/http"
	"strings"
)

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
