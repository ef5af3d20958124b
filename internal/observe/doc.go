// Package observe connects nodegate's request path to its telemetry: it
// implements the pipeline's Observer (a count and a duration per call, a
// span per stage), the pools' upstream.Observer (a duration and an error
// class per attempt, a span per attempt with the W3C traceparent sent
// upstream), an HTTP middleware for the client listeners (in-flight,
// requests refused before any call, the access log line, the request span
// continuing the client's traceparent), a wrapper of the ingress's
// Metering (rate-limit decisions) and the collector of live state (heads,
// lag, WebSocket connections, key store age).
//
// Every method name it records goes through methods.Label. It observes and
// must not decide anything: no answer depends on it.
package observe
