// Package subs is the subscription hub of one network: it keeps one
// stream per kind + filter and fans its notifications out to every client
// subscription of that stream, under ids that nodegate makes. On a pool
// that keeps the canonical chain by hash (EVM networks), newHeads and
// logs are made from that chain, whatever the members are (chain.go): one
// follower per network (upstream.CanonView.Follow), each new block read
// once (eth_getBlockByHash for its header, one eth_getLogs by its hash for
// its logs, through the pool's Send), each log matched against every logs
// stream's filter in process (logfilter.go), and the logs of blocks that
// leave the chain sent again with removed: true; a read that fails is
// tried again while its block is on the chain (chainread.go), so no block
// is skipped. Every other stream (and newHeads on other pools) is one
// upstream subscription and runs on one
// member of the network's
// upstream.Pool, the one the pool ranks best (hub.go); the hub follows the
// pool (follow.go) and moves every stream when that member leaves service
// or falls behind the head, and re-subscribes when a subscription ends,
// without changing the clients' ids. It fills a newHeads gap from the new
// member by block number and never delivers a head number twice (heads.go);
// after a move it drops logs of blocks already delivered (logs.go). A
// client's subscriptions are bounded per connection (NewClient's max) and
// by the transport's Admission (client.go), which nodegate's ingress backs
// with each key's plan's max_subscriptions counted once per process
// (internal/admission): subs itself counts no keys.
//
// It subscribes through the member's upstream.Subscriber (the member's own
// ws connection, or the embedded node in process), reads gap fills with
// the member's Do and the chain's blocks with the pool's Send: it dials
// nothing itself. It must not choose members by
// its own rules: the pool's SubscriptionMember, InService and Lag decide.
//
// A stream encodes each notification once (jsonrpc.Notification) and
// hands it to its subscriptions from a snapshot, holding none of the hub's
// locks (stream.go): a Notifier only queues it, with no I/O, and splices
// the subscription id in when it writes it.
//
// It must not know about keys, plans, credits or a client transport: a
// client is a Notifier that receives (subscription id, notification)
// pairs, and its queue bound belongs to the transport.
package subs
