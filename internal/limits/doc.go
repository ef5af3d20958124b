// Package limits enforces docs/spec.md's per-method limits at the gateway,
// whatever node is behind it: for eth_getLogs the parameter count, the
// result count (by splitting wide ranges into sub-ranges and stopping at
// the first log over the limit) and the duration, which log filters obey
// too (eth_newFilter, eth_getFilterLogs, eth_getFilterChanges); for eth_call and
// eth_estimateGas the gas cap (the gas field lowered to a multiple of the
// head block's gas limit). It also holds the limit values per plan.
//
// It decides and rewrites; it does no I/O of its own: upstream calls are
// made through the functions the pipeline hands in. It must not know about
// transports, keys, how upstreams are chosen (it imports neither upstream
// nor config: when a call's time is up is internal/deadline's rule, and
// the service maps the configuration to Values: service/limits.go).
package limits
