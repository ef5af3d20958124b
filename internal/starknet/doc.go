// Package starknet is the rollup family of nodegate (docs/spec.md's rollup_
// methods, Starknet JSON-RPC on the wire): felts and their validation, the
// INVOKE transactions and their hashes (Pedersen for v0/v1, Poseidon for
// v3), Sierra class hashes, selectors, contract addresses and Stark keys
// (class.go, keys.go), the wire pieces every Starknet answer is written with (wire.go), and
// Pending, the reader behind rollup_pendingTransactions (forwarded to a
// node that still serves starknet_pendingTransactions, or built from the
// pending block of a newer one). The embedded devnet is
// internal/starknet/devnet.
//
// It owns Starknet semantics only. It must not know about keys, plans,
// client transports, the pipeline or how networks are chosen: the Starknet
// family's pipeline stage (internal/pipeline) calls Pending by the call's
// method. It talks to nodes through upstream.Upstream (a network's pool)
// and answers with raw JSON and jsonrpc errors.
package starknet
