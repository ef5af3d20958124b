package override

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// StateOverride is eth_call's third param: accounts to override, keyed by
// address.
type StateOverride map[common.Address]OverrideAccount

// OverrideAccount is one account's overrides, with the fields (and JSON
// names) go-ethereum accepts, each of go-ethereum's own type.
type OverrideAccount struct {
	Nonce            *hexutil.Uint64             `json:"nonce"`
	Code             *hexutil.Bytes              `json:"code"`
	Balance          *hexutil.Big                `json:"balance"`
	State            map[common.Hash]common.Hash `json:"state"`
	StateDiff        map[common.Hash]common.Hash `json:"stateDiff"`
	MovePrecompileTo *common.Address             `json:"movePrecompileToAddress"`
}

// BlockOverrides is eth_call's fourth param: block fields to override.
// As in go-ethereum, the fields carry no JSON names: encoding/json matches
// them by field name, case-insensitively.
type BlockOverrides struct {
	Number        *hexutil.Big
	Difficulty    *hexutil.Big
	Time          *hexutil.Uint64
	GasLimit      *hexutil.Uint64
	FeeRecipient  *common.Address
	PrevRandao    *common.Hash
	BaseFeePerGas *hexutil.Big
	BlobBaseFee   *hexutil.Big
	BeaconRoot    *common.Hash
	Withdrawals   *types.Withdrawals
}
