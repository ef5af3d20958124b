// Package faultproxy is a JSON-RPC proxy for tests, in front of a real
// node on loopback, that corrupts a fraction of the answers in the ways a
// bad member does (a block's hash, parent hash or transactions root, a
// transaction's value, nonce or sender, a receipt's status, a log's data
// or block hash, another block or transaction than asked: corrupt.go) and
// holds a fraction of the calls for a while (a member that stalls). It
// counts the calls it saw, the lies it told by way and the calls it held,
// for the harness that compares nodegate's answers with an honest member's
// (internal/service, TestMembersThatLieAndStall) and for the pool's own
// test of lies caught (internal/upstream, TestLiarIsCaught).
//
// It owns nothing of nodegate: it imports only jsonrpc, and nothing in the
// binary imports it.
package faultproxy
