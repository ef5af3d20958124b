// Package gatewaytest wires nodegate's HTTP gateway for benchmarks: one key
// on the team plan without a rate, one network, and the real key cache,
// limiter and usage records, so that the key check, the method rules and
// the metering run as in production; and it serves that gateway in
// process, without a listener, to see ingress and pipeline alone.
//
// It is for tests only; nothing in the binary imports it.
package gatewaytest
