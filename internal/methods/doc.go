// Package methods is the method table: for every method nodegate knows, how
// its params are validated at the gateway, whether it may be retried,
// whether it is eligible for partner failover, its credit cost and its
// family. Unknown methods are decided by namespace (forwarded or refused).
//
// It decides about single calls only; it must not do I/O or know about
// keys, transports or upstreams.
package methods
