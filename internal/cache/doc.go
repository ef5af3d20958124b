// Package cache keeps answers that can no longer change: what a node said
// about blocks at or below the finalized block (policy.go judges which
// calls and answers those are, by the facts of each method's rule:
// methods.Rule's Cacheable, Block and Proves). While lookups mostly miss, an answer is kept
// only the second time its key is fetched (admit.go). Entries live in
// memory within a byte budget (otter), and optionally in Redis, shared by
// a fleet.
//
// It must not know about keys, plans or transports, and never decides on
// anything but the call, its answer and the finalized block number.
package cache
