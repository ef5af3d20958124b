// Package upstreamtest is what the tests of a pool's canonical chain share
// for their fake nodes (internal/upstream's fork nodes, internal/subs's
// fake chain): pool members that reach test servers over HTTP
// (HTTPMembers), the hash a fake gives a block of a fork (BlockHash), and
// the one call a fake node reads from a request (ReadRequest).
//
// It is for tests only; nothing in the binary imports it. It must not
// import a package whose tests use it other than upstream and its
// transport.
package upstreamtest
