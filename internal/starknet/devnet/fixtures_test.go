package devnet

import "github.com/nodegate/nodegate/internal/starknet/starknettest"

// The fixtures shared with the family's tests (internal/starknet/starknettest).
const (
	validV3 = starknettest.ValidV3
	validV1 = starknettest.ValidV1
)

var (
	pHex                 = starknettest.PHex
	unquote              = starknettest.Unquote
	hashOf               = starknettest.HashOf
	submitMainnetVectors = starknettest.SubmitMainnetVectors
)
