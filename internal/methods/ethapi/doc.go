// Package ethapi declares the call object of eth_call and eth_estimateGas
// under the package, type and field names go-ethereum uses
// (ethapi.TransactionArgs), every field of go-ethereum's own exported type
// (hexutil, common, types, kzg4844), so that a malformed call object is
// refused with word-for-word the message the node itself gives.
// go-ethereum's own type lives in an internal package (internal/ethapi)
// and cannot be imported.
//
// It declares types only: no validation beyond JSON decoding, no I/O.
package ethapi
