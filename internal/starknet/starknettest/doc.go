// Package starknettest holds the fixtures the tests of internal/starknet
// and internal/starknet/devnet share: well-formed INVOKE transactions, the
// field prime, and the real mainnet transactions of
// internal/starknet/testdata (see its ORIGIN.md). It imports neither
// package, so the family's own tests can use it.
package starknettest
