// Package transport holds the connections to nodes, each an
// upstream.Upstream: HTTP (http.go, with its own HTTP/1.1 client in h1.go
// and h1read.go for plain http:// nodes), WS (ws.go: one multiplexed
// WebSocket connection, with push subscriptions in ws_subscribe.go) and
// InProc (inproc.go: the embedded node in process). WithRequestHeader
// (headers.go) gives HTTP requests extra headers, a traceparent say.
//
// It moves bytes only: it must not decide retries, health or which member
// answers (internal/upstream's Pool does), and must not know about keys,
// plans or client transports.
package transport
