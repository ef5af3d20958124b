// Package verify checks an EVM member's answer before it leaves: that it
// is the answer to what was asked (identity: a block by number N has
// number N, by hash H has hash H; a transaction or receipt by hash H has
// hash H; a transaction by block and index is at that block and index; a
// receipt's logs agree with it; the logs of a filter are in the blocks it
// names) and that it is whole (integrity: a block's hash is keccak of its
// header, go-ethereum's types.Header.Hash, every fork's fields; its
// transactionsRoot is types.DeriveSha of its full transactions; a
// transaction's hash is the hash of its fields and its from its signer).
//
// Which kind of answer a method gives is its methods.Rule's Answer (a rule
// written for one method holds for every method of its kind); which
// checks run is Checks, per network. The receipts-root check
// (receiptsroot.go, opt-in) needs the block's header and receipts: it
// names what to fetch and checks what its caller fetched. Pending blocks, and anything without
// a hash, are not mined blocks and are not checked; nor is a null.
//
// It owns pure functions over an answer's bytes and its call's params: it
// must not do I/O, know members or pools (internal/upstream calls it
// through PoolConfig.Verify and VerifyMore, fetches, and decides what a
// failure does), or log.
package verify
