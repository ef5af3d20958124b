// Package ratelimit enforces each key's credit budget: a smooth rate
// (credits per second, GCRA with a burst of the plan's burst, at least one second's worth) and a
// daily credit budget that resets at 00:00 UTC. It also keeps usage
// records (requests, credits and errors per key, day, network and method).
//
// It owns: the Backend interface and its two implementations (memory, the
// default, for one process; Redis, so that a fleet of replicas shares one
// budget, with a fallback to per-replica limits while Redis is away), the
// Limiter that picks between them (the rule for giving Redis up:
// failures.go; what every switch carries over so that none hands out a
// fresh bucket: carry.go), the Meter that the ingress calls once
// per HTTP request through its adapter ingress.RateMeter (cost of the
// whole request, the 429 answer, usage, the
// one series of rate-limit decisions; answers are classified for usage by
// telemetry.Classify, the one classifier), the
// Notes that charge WebSocket notifications in aggregate (reserved in
// memory, spent per key every interval: notes.go), and the Usage
// aggregator that flushes to the key store (per day and minute, with each
// call's latency in a keys.LatencyHist and its error code: the analytics).
//
// It must not parse requests, choose networks or answer calls: the ingress
// hands it each request's network and calls as plain values (Network,
// Call: meter.go), and the key store keeps what it flushes. It imports
// neither the pipeline, the ingress nor the configuration
// (TestImportsNoCaller).
package ratelimit
