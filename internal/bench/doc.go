// Package bench is nodegate's load tool (cmd/nodegate-bench): it drives a
// method mix at a chosen concurrency against any JSON-RPC URL and measures
// throughput and latency percentiles, optionally the same load against a
// second URL in the same run (gateway vs direct), and the CPU a process
// spent per call served. It also serves a static JSON-RPC upstream with
// fixed answers, so that a gateway's own cost can be isolated, and seeds a
// dev chain with transactions and a small contract for realistic calls.
//
// It is a client of nodegate's wire only: it must not import the gateway's
// internals (ingress, pipeline, upstream), so that what it measures is the
// binary as a user runs it.
package bench
