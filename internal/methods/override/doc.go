// Package override names the state and block override params of eth_call
// and eth_estimateGas as go-ethereum names them (override.StateOverride,
// override.BlockOverrides), so that refusals read as the node's. Only the
// outer shape is checked here; the node checks what is inside.
//
// It declares types only: no validation beyond JSON decoding, no I/O.
package override
