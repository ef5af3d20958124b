package methods

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/methods/ethapi"
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
		return &keyError{fmt.Sprintf("%v: %q", err, s)}
	}
	*k = StorageKey(h)
	return nil
}

// keyError is reported without the "invalid argument N" prefix, as the
// node reports it.
type keyError struct{ msg string }

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
