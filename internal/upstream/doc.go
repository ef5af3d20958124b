// Package upstream talks to nodes: the embedded in-process node and remote
// nodes over HTTP or WebSocket (ws.go: one multiplexed connection). An upstream takes a raw JSON-RPC body and returns the raw
// response body; results are never decoded here.
//
// It must not know about keys, plans or client transports.
package upstream
