// Command nodegate-bench is nodegate's load tool: it drives a JSON-RPC
// method mix against any URL and prints throughput, latency percentiles
// and CPU per call, times a subscription's fan-out to many WebSockets,
// serves a static upstream with fixed answers, and seeds a dev chain for
// realistic calls. See docs/bench.md.
//
// It parses flags and prints; the load logic is internal/bench's.
package main
