// Package starknet is the rollup family of nodegate (SPEC.md's rollup_
// methods, Starknet JSON-RPC on the wire): felts and their validation, the
// INVOKE transaction hash, the gateway-side answer to
// rollup_pendingTransactions (forwarded to a node that still serves
// starknet_pendingTransactions, or built from the pending block of a newer
// one), and Devnet, the embedded in-process pending pool that the default
// run serves.
//
// It owns Starknet semantics only. It must not know about keys, plans,
// client transports or how networks are chosen; it talks to nodes through
// upstream.Upstream and answers with raw JSON and jsonrpc errors.
package starknet
