// Package evmnode runs go-ethereum in-process: a dev chain (chain id 1337
// with funded accounts, a block per transaction or per period) or a chain
// imported from genesis.json + chain.rlp (+ headfcu.json). It exposes the
// node's JSON-RPC server as raw bytes in, raw bytes out, and can also serve
// it over plain HTTP/WebSocket for `nodegate node`. Node.Do serves a bounded
// number of calls at once (call.go), and the node's eth_call time limit is
// configurable (Config.CallTimeout); every run of a method that runs code
// stops when its call's context ends, eth_createAccessList's included
// (cancel_runs.go). Its writes are bounded by the chain's
// byte budget (chainbudget.go) and each account's share of it
// (chainshare.go).
//
// It owns the node's lifecycle only; it knows nothing about keys, plans or
// the gateway pipeline: the account a write is charged to is an opaque
// name its context carries (admission.AccountOf).
package evmnode
