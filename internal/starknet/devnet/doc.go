// Package devnet is the embedded in-process Starknet devnet that the
// default run serves, in Starknet JSON-RPC 0.10 (Do) and 0.8 (Do08;
// spec.go holds what differs): predeployed dev accounts of one Sierra
// account class (accounts.go, account_class.go), a pending pool, blocks,
// per-account nonces, statuses, receipts and fee estimates at fixed
// prices, enough for starknet.js's standard flow in both versions; it
// executes no code. The gateway calls Do and Do08 in process; Handler
// serves it over HTTP on its own.
//
// It hashes only what it may accept: a transaction refused for room, a new
// sender or its nonce (a duplicate included) is refused before it is
// hashed (devnet_budget.go, devnet_unhashed.go); what a write may hash is
// bounded per request, per account (an opaque name its context carries:
// admission.AccountOf) and per process before it is hashed
// (devnet_hashshare.go).
//
// It keeps devnet state only: transactions are decoded and hashed by
// internal/starknet, and it must not know about keys, plans, the pipeline
// or how networks are chosen.
package devnet
