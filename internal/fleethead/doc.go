// Package fleethead gives a fleet of replicas one head per network
// (issue 31, item 6): through the Redis the replicas already share for
// rate limits, each replica publishes the head its pool gave clients
// (number and hash) on a channel per network, and keeps one key per
// network holding the highest head given by any replica; each replica's
// pool takes the heads the others publish as its own mark, so that a
// client moving between replicas never gets a lower head, and a head
// whose hash its chain does not hold as a claim of the block at that
// height, so that it does not give another block there
// (upstream.Pool.PeerHead). Handing a head over never waits: the pool
// stores the number (an atomic store) and one goroutine per network sends
// it, one round trip per head per replica, and only when it is above the
// key; only a call that ends while such a send is pending waits, before
// it answers, until that send ended (Network.Published, bounded by
// Options.Timeout, no wait while Redis does not take the heads).
// A reorg to a shorter chain is published as such and lowers the others'
// marks. Without Redis, or while it is away, each replica keeps its own
// view (docs/pools.md says what holds then).
//
// It owns the Redis key and channel of the fleet's heads and nothing else:
// it knows no keys, plans or transports, and the pool knows it only as an
// upstream.HeadSharer.
package fleethead
