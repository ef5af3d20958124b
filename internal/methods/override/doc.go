// Package override declares the state and block override params of eth_call
// and eth_estimateGas with go-ethereum's package, type and field names
// (override.StateOverride, override.OverrideAccount, override.BlockOverrides)
// and its field types, so that a malformed override is refused with
// word-for-word the node's message and blames the same argument.
// go-ethereum's own types live in an internal package (internal/ethapi/
// override) and cannot be imported; every field here is of an exported
// go-ethereum type, which carries the validation.
//
// It declares types only: no validation beyond JSON decoding, no I/O.
package override
