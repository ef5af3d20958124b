// Package pipeline runs calls through nodegate's stages in one fixed order
// (stages.go): recover, method rules, key policy, the stages of the
// network's family (families.go: the EVM family's limits and execution
// bounds; the Starknet family's pending-transactions stage), the session,
// blockFirst (a param go-ethereum checks only after the call's block is
// refused after the node's own error for that block: deferred.go), then
// the route to the network's nodes. Which stages a network gets is
// internal/family's decision (Network.Stages; a network assembled without
// them gets the EVM family's). A stage is a value that holds its
// own dependencies (a limit set, a gas limiter, a pending-pool reader, the
// route's cache, the process's admission.Keys for each key's execution
// turns, which therefore outlive a network built again); a Network carries only what every stage needs, its nodes
// and its stages. Both transports hand their calls to the same pipeline,
// which compiles each network's chain once, so no rule exists on one
// transport only. A batch is split into calls that run concurrently,
// within a window and the request's answer budget, and whose answers are
// handed back in order as they finish (batch.go).
//
// Each client call has one record (call.go): its credits, its place in its
// client batch, the member that answered it. A stage that passes the call
// on changed makes the copy with Call.Sub, which shares the record, so what
// the route learns on a copy is the caller's. The reads nodegate makes for
// itself (the block number of a tag) are no client's call: Network.Read
// sends them through their own stage, internalRead, and the route, with no
// key and no place in a client batch (read.go).
//
// It must not parse wire bytes or write responses: that is the ingress.
// Starknet semantics (the pending pool, felts) are package starknet's; the
// pipeline only places its reader in the Starknet family's stage.
package pipeline
