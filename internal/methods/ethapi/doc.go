// Package ethapi holds the gateway's copy of the shape of go-ethereum's
// call object, under the package and type names go-ethereum uses
// (ethapi.TransactionArgs), so that a malformed call object is refused
// with word-for-word the message the node itself gives. go-ethereum's own
// type lives in an internal package and cannot be imported.
//
// It declares types only: no validation beyond JSON decoding, no I/O.
package ethapi
