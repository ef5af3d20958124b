// Package devnet is the embedded in-process Starknet JSON-RPC 0.8.1 devnet
// that the default run serves: a pending pool, blocks, per-account nonces,
// statuses, receipts and fee estimates at fixed prices, enough for
// starknet.js's standard flow; it executes no code. The gateway calls Do in
// process; Handler serves it over HTTP on its own.
//
// It keeps devnet state only: transactions are decoded and hashed by
// internal/starknet, and it must not know about keys, plans, the pipeline
// or how networks are chosen.
package devnet
