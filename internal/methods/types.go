package methods

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/methods/ethapi"
	"github.com/nodegate/nodegate/jsonrpc"
)

// CallArgs is the call object of eth_call and eth_estimateGas. It is an
// alias so that decoding errors name ethapi.TransactionArgs, as the node's do.
type CallArgs = ethapi.TransactionArgs

// StorageKey is eth_getStorageAt's position: hex of at most 32 bytes, with
// or without 0x, odd length allowed (go-ethereum's rules and wording).
type StorageKey common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (k *StorageKey) UnmarshalJSON(raw []byte) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	h, err := decodeStorageKey(s)
	if err != nil {
		return &keyError{msg: fmt.Sprintf("%v: %q", err, s), placeholder: json.RawMessage(`"0x0"`)}
	}
	*k = StorageKey(h)
	return nil
}

// keyError is a value the node checks inside the method (after resolving
// the block), reported without the "invalid argument N" prefix, as the
// node reports it. placeholder is a valid value of the same param.
type keyError struct {
	msg         string
	placeholder json.RawMessage
}

// Deferred is a param refused the way the node refuses it only once it has
// resolved the call's block: go-ethereum's eth_getStorageAt looks the block
// up first and answers an unknown block with its block error, whatever the
// storage key. The pipeline asks the node the same call with Placeholder
// at Index: the node's error wins; without one, Err is the answer.
type Deferred struct {
	Index       int
	Placeholder json.RawMessage
	Err         *jsonrpc.Error
}

// Deferred returns the call's deferred param check, or nil.
func (p Parsed) Deferred() *Deferred {
	for _, v := range p {
		if d, ok := v.(*Deferred); ok {
			return d
		}
	}
	return nil
}

func (e *keyError) Error() string { return e.msg }

func decodeStorageKey(s string) (common.Hash, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	if len(s) > 64 {
		return common.Hash{}, errors.New("storage key too long (want at most 32 bytes)")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return common.Hash{}, errors.New("invalid hex in storage key")
	}
	return common.BytesToHash(b), nil
}
