// Package gatewaytest wires nodegate's HTTP and WebSocket gateway for tests
// and benchmarks without a whole service: one key (Key) on the team plan
// (Team, without a rate, or a plan of the test's: ServerOn), one network,
// and the real key cache, limiter and usage records, so that the key check,
// the method rules and the metering run as in production (Server; New for
// a TestMain); and it serves that gateway in process, without a listener,
// to see ingress and pipeline alone (ServeDirect).
//
// It is for tests only; nothing in the binary imports it.
package gatewaytest
