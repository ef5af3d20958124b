// Package subs is the subscription hub of one network: it keeps one
// upstream subscription per stream (kind + filter) and fans its
// notifications out to every client subscription of that stream, under ids
// that nodegate makes. When the upstream connection drops it re-subscribes
// (on the next source when there are several) without changing the clients'
// ids, and it fills a newHeads gap from the node by block number so that no
// head is skipped.
//
// It must not know about keys, plans or the wire format of a client
// transport: a client is a Notifier that receives (subscription id, raw
// result) pairs, and its queue bound belongs to the transport.
package subs
