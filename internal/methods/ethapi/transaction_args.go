package ethapi

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
)

// TransactionArgs is the call object of eth_call and eth_estimateGas
// (docs/spec.md, "Call object"), with the fields go-ethereum accepts in it, each
// decoded by go-ethereum's own types so that malformed values fail as they
// would there.
type TransactionArgs struct {
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
	Blobs                []kzg4844.Blob               `json:"blobs"`
	Commitments          []kzg4844.Commitment         `json:"commitments"`
	Proofs               []kzg4844.Proof              `json:"proofs"`
	AuthorizationList    []types.SetCodeAuthorization `json:"authorizationList"`
}
