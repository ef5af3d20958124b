// Package servicetest starts real nodegate services for tests: the
// embedded default (or what the test configures) on loopback ports the
// system picks, with its files in the test's temporary directory, closed
// when the test ends.
//
// It is for tests only; nothing in the binary imports it.
package servicetest
