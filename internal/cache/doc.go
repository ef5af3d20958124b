// Package cache keeps answers that can no longer change: what a node said
// about blocks at or below the finalized block (policy.go judges which
// calls and answers those are, by the facts of each method's rule:
// methods.Rule's Cacheable, Block and Proves). While lookups mostly miss, an answer is kept
// only the second time its key is fetched (admit.go). Entries live in
// memory within a byte budget (otter), and optionally in Redis, shared by
// a fleet. Each entry carries the block its answer is about (number and
// hash, entry.go): an entry whose block the canonical chain no longer holds
// is dropped, and a reorg drops the entries of the heights it left
// (DropFrom), in memory and Redis.
//
// It must not know about keys, plans or transports, and never decides on
// anything but the call, its answer, the finalized block number and the
// canonical chain it is given (Canon). Whether the member that answered
// has the answer final is the pool's to say (upstream.Pool.Final).
package cache
