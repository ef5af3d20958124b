package methods

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// CallArgs is the call object of eth_call and eth_estimateGas (SPEC.md,
// "Call object"), with the fields go-ethereum accepts in it, each decoded by
// go-ethereum's own types so that malformed values fail as they would there.
type CallArgs struct {
	From                 *common.Address              `json:"from"`
	To                   *common.Address              `json:"to"`
	Gas                  *hexutil.Uint64              `json:"gas"`
	GasPrice             *hexutil.Big                 `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big                 `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big                 `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big                 `json:"value"`
	Nonce                *hexutil.Uint64              `json:"nonce"`
	Data                 *hexutil.Bytes               `json:"data"`
	Input                *hexutil.Bytes               `json:"input"`
	AccessList           *types.AccessList            `json:"accessList,omitempty"`
	ChainID              *hexutil.Big                 `json:"chainId,omitempty"`
	BlobFeeCap           *hexutil.Big                 `json:"maxFeePerBlobGas"`
	BlobHashes           []common.Hash                `json:"blobVersionedHashes,omitempty"`
	AuthorizationList    []types.SetCodeAuthorization `json:"authorizationList"`
}

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
