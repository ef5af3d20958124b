package override

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
)

// StateOverride is eth_call's third param: accounts to override, keyed by
// address.
type StateOverride map[common.Address]OverrideAccount

// OverrideAccount is one account's overrides; its fields are left to the node.
type OverrideAccount map[string]json.RawMessage

// BlockOverrides is eth_call's fourth param: block fields to override.
// The fields are left to the node.
type BlockOverrides map[string]json.RawMessage
