// Package telemetry holds nodegate's Prometheus registry and series
// (docs/observability.md lists them all; the limiter's own series are
// internal/ratelimit's), the outcome classes of calls (codes.go: the one
// classifier of answers, which the usage records' error kinds follow too)
// and the error classes of upstream attempts. Recording a call
// or an attempt reuses the label children it resolved the first time, so
// the hot path does not allocate. Labels come only from bounded sets:
// method names through methods.Label, networks and upstreams from the
// configuration. Metrics never carry a key, only its id.
//
// It records; it must not decide anything. What is recorded where is
// internal/observe's business.
package telemetry
