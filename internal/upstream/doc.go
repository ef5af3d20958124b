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
// and its changes told to followers by hash, blocks joining and leaving
// (canonfollow.go) —, the answer to a
// block far beyond every head (future.go), the chain its members serve —
// chain id and genesis hash, learned with the finalized numbers (chain.go)
// — the check that each member is on the pool's chain, by the family's
// chain-id method (chaincheck.go), the head block's gas limit
// (gaslimit.go), the choice of a member (choose.go), the one way in, Send,
// and its one retry loop (send.go; upstream batches, batch.go), reading
// what a method says about blocks from the rule the call carries — the
// block a call names, a lagging member's answer, what an answer proves
// (need.go, proof.go; the facts are methods.Rule's, never a table here) —
// the sending of signed transactions to every member (broadcast.go), once
// decoded and checked (rawtx.go), and again to a member that missed one
// when it is back in service (resend.go), and
// which member push subscriptions should run on (follow.go). What is subscribed and delivered to clients belongs to
// internal/subs.
//
// It must not know about keys, plans, client transports or how a node is
// reached (no transport is imported here), nor name methods beyond the
// ones it is configured with (the head, head-block and chain-id methods) and the
// EVM block reads of its finalized block, gas limit and genesis.
package upstream
