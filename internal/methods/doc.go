// Package methods is the method table: for every method nodegate knows, how
// its params are validated at the gateway, whether it may be retried,
// whether it is eligible for partner failover, its credit cost and its
// family, and every other per-method fact the pipeline reads: whether it
// runs code, where its params name contracts, which params override state
// or the block, whether its answer can be very large, and what it says
// about blocks for the pool and the cache (facts.go: the block it names,
// the answer field proving a block, lookup by hash, write, cacheable; tied
// to go-ethereum's own signatures by TestFactsMatchGoEthereum), and what it
// needs at the block it names, old state or old history (needs.go). They are
// fields of its Rule, never side tables elsewhere. Unknown methods are decided by
// namespace (forwarded or refused).
//
// It decides about single calls only; it must not do I/O or know about
// keys, transports or upstreams.
package methods
