// Package upstream is a network's one backend, the Pool, and the contract
// every node connection meets: an Upstream takes a raw JSON-RPC body and
// returns the raw response body (results are never decoded here), failing
// with *Error when the node is at fault; Subscriber and Subscription are
// the push subscriptions a connection may carry. The connections
// themselves (HTTP/1.1, WebSocket, the embedded node in process) are
// internal/upstream/transport.
//
// The Pool owns its members' health, heads and finalized numbers (head.go:
// pushed by members that can, polled, and raised by answers that prove a
// mined block — the rule of what proves one is proof.go), the canonical
// chain by hash — a hash-linked window of recent blocks built from heads
// polled as blocks (PoolConfig.HeadBlockMethod) and pushed with their
// hashes, which judges members on another branch (canon.go, headblock.go),
// links a new head to it by reading the blocks between from its member
// (canonlink.go), leaves a lagging member on an abandoned branch
// unfollowed (canongone.go), and tells its changes to followers by hash,
// blocks joining and leaving (canonfollow.go) —, the head it shares with a fleet's other replicas
// (fleethead.go: it tells its HeadSharer of head moves and takes their
// heads as its mark through PeerHead, and a head its chain does not hold
// as a claim of the block at that height, canonclaim.go, under which the
// blocks below it wait for the members' next heads, canonbelow.go; the sharing
// itself is internal/fleethead's),
// the answers that name a block off it or above its head, each log and
// block receipt by its own block (canonjudge.go, answerblock.go), and
// again when the chain reorganised before the answer left (canonlate.go),
// word of a head that a rewind made stale (canonstale.go),
// members on a fork
// of their own ahead of the others (forkahead.go), and what is final for
// the cache as the member that answered has it (final.go) —, `safe` and
// `finalized` answers that never go back and members whose finalized
// block is off the chain (finality.go), the answer to a
// block far beyond every head (future.go), the chain its members serve —
// chain id and genesis hash, learned with the finalized numbers (chain.go)
// — the check that each member is on the pool's chain, by the family's
// chain-id method and its genesis block (chaincheck.go), the head block's gas limit
// (gaslimit.go), the choice of a member (choose.go; by how often each
// holds its calls past their hedge delay too, held.go), the one way in, Send,
// and its one retry loop (send.go; upstream batches, batch.go), hedged
// reads — a read its member is late on sent to a second member, the
// first answer kept, and the calls of a member that hangs or goes out
// given to another (hedge.go, hedgewatch.go), by each method's recent
// latency on each member (latency.go; the delay's rule, hedgedelay.go) —,
// reading
// what a method says about blocks from the rule the call carries — the
// block a call names, a lagging member's answer, what an answer proves
// (need.go, proof.go; the facts are methods.Rule's, never a table here) —
// how far back each member serves state and logs — its floors,
// configured, probed (floorprobe.go) or learned from its answers in the
// one table of pruned wordings (floorerrors.go), and the routing of a call
// naming an old block by them (floor.go; what a method needs is
// methods.Rule.Needs) —,
// the quarantine of a member whose answer failed the family's checks
// (PoolConfig.Verify; verify.go: what is checked is internal/verify's;
// PoolConfig.VerifyMore, the checks that ask the member more such as the
// receipts root: verifymore.go),
// the sending of signed transactions to every member (broadcast.go), once
// decoded and checked (rawtx.go), bounded per member and held in the
// caller's count while they run (broadcast_bound.go), and again to a
// member that missed one when it is back in service (resend.go), and
// which member push subscriptions should run on (follow.go). What is subscribed and delivered to clients belongs to
// internal/subs.
//
// It must not know about keys, plans, client transports or how a node is
// reached (no transport is imported here), nor name a method: a client's
// call carries its own, and the pool's own calls (head polls, chain id,
// finalized block, gas limit, genesis, a transaction by hash) are built in
// one place, requests.go, from the family's methods it is configured with
// (familykind.Kind, the default family's when none is given).
package upstream
