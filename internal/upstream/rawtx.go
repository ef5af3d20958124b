package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/jsonrpc"
)

// MaxRawTxBytes bounds a signed transaction sent to the members: go-ethereum's
// transaction pool refuses larger ones ("oversized data", four 32 KiB slots).
const MaxRawTxBytes = 4 * 32 * 1024

// MaxBlobTxBytes bounds a blob transaction (type 3) with its sidecar: the
// blob pool keeps its own bound (1 MiB outside the blobs), and the blobs
// come on top (128 KiB each, with their commitments and proofs); 4 MiB
// holds the most blobs a transaction carries. The request body bound still
// applies before this.
const MaxBlobTxBytes = 4 << 20

// maxRawTxBytes is the size bound of a signed transaction by its type.
func maxRawTxBytes(raw []byte) int {
	if len(raw) > 0 && raw[0] == types.BlobTxType {
		return MaxBlobTxBytes
	}
	return MaxRawTxBytes
}

// errOversizedData is go-ethereum's refusal of a transaction over its size bound.
var errOversizedData = errors.New("oversized data")

// checkRawTx decodes the signed transaction a write (eth_sendRawTransaction
// and its kind) carries first, before it is sent anywhere: a param that is
// not hex is -32602, bytes that are not a transaction (go-ethereum's
// types.Transaction.UnmarshalBinary), a transaction over its size bound
// (MaxRawTxBytes; MaxBlobTxBytes for a blob transaction) or
// one signed for another chain than the members' are -32000, as
// go-ethereum answers them. nil when the transaction may go on.
func (p *Pool) checkRawTx(params json.RawMessage) *jsonrpc.Error {
	first := jsonrpc.Element(params, 0)
	var raw hexutil.Bytes
	if err := json.Unmarshal(first, &raw); err != nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid argument 0: "+err.Error())
	}
	if limit := maxRawTxBytes(raw); len(raw) > limit {
		return jsonrpc.NewError(jsonrpc.CodeServerError, fmt.Sprintf("%v: transaction size %d, limit %d", errOversizedData, len(raw), limit))
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return jsonrpc.NewError(jsonrpc.CodeServerError, err.Error())
	}
	if want, ok := p.chainID(); ok && tx.Protected() && tx.ChainId().Cmp(want) != 0 {
		return jsonrpc.NewError(jsonrpc.CodeServerError, fmt.Sprintf("invalid sender: %v: have %v want %v", types.ErrInvalidChainId, tx.ChainId(), want))
	}
	return nil
}

// chainID is the chain id of the chain the members serve, when known (Chain).
func (p *Pool) chainID() (*big.Int, bool) {
	id, _, ok := strings.Cut(p.Chain(), "/")
	if !ok {
		return nil, false
	}
	n, ok := new(big.Int).SetString(id, 10)
	return n, ok
}
