// Package plan owns what a key's plan grants: the one Plan type that the
// configuration decodes (plans:), the key store keeps (nodegate_plans) and
// every part of the request path reads from a key (key.Plan). Its fields
// are the whole grant: credits per second and per day, partner failover,
// the per-key caps (calls in flight, WebSockets, subscriptions), the answer
// budget, the execution time and the per-method limits (eth_getLogs, the
// gas cap). The rules of a plan's values (what 0 means, what is invalid)
// live here and nowhere else.
//
// It is a leaf: it imports no nodegate package, does no I/O and keeps no
// state. It must not know where a plan is stored, how a configuration file
// is read or how a limit is enforced (internal/keys, internal/config,
// internal/limits, internal/admission and internal/ratelimit do that).
package plan
