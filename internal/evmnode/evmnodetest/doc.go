// Package evmnodetest starts the embedded go-ethereum dev chain for a
// test: Start gives a running node closed when the test ends. It is the
// one way tests outside internal/evmnode get a node (internal/testenv
// cannot import evmnode: evmnode's own tests use testenv).
//
// It is for tests only; nothing in the binary imports it.
package evmnodetest
