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
// mined block — the rule of what proves one is proof.go), the answer to a
// block far beyond every head (future.go), the chain its members serve — chain id and genesis hash, learned
// with the finalized numbers (chain.go) — the head block's gas limit
// (gaslimit.go), the one retry loop of
// calls (pool.go, batch.go) with what it knows of each method — the block a
// call names, a lagging member's answer, what an answer proves (need.go) —
// the sending of signed transactions to every member (broadcast.go), once
// decoded and checked (rawtx.go), and
// which member push subscriptions should run on (follow.go). What is subscribed and delivered to clients belongs to
// internal/subs.
//
// It must not know about keys, plans, client transports or how a node is
// reached (no transport is imported here).
package upstream
