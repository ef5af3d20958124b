// Package ingress owns the wire: the HTTP listener, the /v3/<key> path (and
// /v3/<key>/rpc/<version>, which picks the network's version: path.go), the
// WebSocket endpoint /ws/v3/<key> (websocket.go, wsconn.go: frame, in-flight
// and keepalive limits; wswriter.go: the send queue and its writer, which
// splices a subscription's id into a notification encoded once per stream
// and counts it on the key's notes account once written), TLS certificates (tls.go), the body and batch
// limits, auth failures (decided before the body is parsed or the socket
// upgraded; the client's address for a key's address allowlist comes from
// the peer or, behind trusted_proxies, X-Forwarded-For: clientaddr.go, and their PROXY protocol header: proxyproto.go) and writing responses. Both transports turn bytes into pipeline
// calls and answers back into bytes through one function (serve.go), which
// also holds a key's calls in flight to its plan and writes
// each answer as it is ready (answer.go; HTTP streams large answers, every
// write within Limits.WriteTimeout). Its client listeners' connections
// are bounded (per listener and per address, connlisten.go; a descriptor
// budget, conns.go; a short idle timeout until the connection is keyed — a request on it
// admitted and charged, or a WebSocket upgraded — then a place among its
// key's max_connections, and keyed idle connections closed sooner as the
// bounds fill, connguard.go). RateMeter (ratemeter.go) is
// its Metering by the rate limits: it hands ratelimit.Meter each request's
// network and calls as plain values and copies the priced credits back.
//
// A key's per-plan caps (calls in flight, open WebSockets, live
// subscriptions) are counted by Server.Admission (internal/admission),
// which the service makes once per process and gives to every server (one
// per listener and per reload generation): a server keeps no per-key
// count of its own, and answers the refusals admission makes.
//
// It must not decide anything about methods or upstreams: that is the pipeline's.
package ingress
