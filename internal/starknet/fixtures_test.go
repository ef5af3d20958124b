package starknet

import "github.com/nodegate/nodegate/internal/starknet/starknettest"

// The fixtures shared with the devnet's tests (internal/starknet/starknettest).
const validV3 = starknettest.ValidV3

var (
	pHex              = starknettest.PHex
	loadInvokeVectors = starknettest.LoadInvokeVectors
)
