// Package upstream talks to nodes: the embedded in-process node and remote
// nodes over HTTP or WebSocket (ws.go: one multiplexed connection). An upstream takes a raw JSON-RPC body and returns the raw
// response body; results are never decoded here.
//
// The Pool is a network's one backend: it owns its members' health, heads
// and finalized numbers (head.go), the head block's gas limit
// (gaslimit.go), the one retry loop of calls (pool.go, batch.go), and which
// member push subscriptions should run on (follow.go). Subscriptions go over
// the member's own connection (ws_subscribe.go; the embedded node in
// process, inproc.go); what is subscribed and delivered to clients belongs
// to internal/subs.
//
// It must not know about keys, plans or client transports.
package upstream
