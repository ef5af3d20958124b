package limits

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/familykind"
)

// bound is one end of a block range: a number, or a tag the node resolves.
type bound struct {
	num   uint64
	tag   rpc.BlockNumber
	isNum bool
}

// boundOf reads fromBlock/toBlock as decoded by go-ethereum: absent means
// latest (docs/spec.md, "Filter object"), negative values are the tags.
func boundOf(b *big.Int) bound {
	switch {
	case b == nil:
		return bound{tag: rpc.LatestBlockNumber}
	case b.Sign() >= 0 && b.IsUint64():
		return bound{num: b.Uint64(), isNum: true}
	case b.IsInt64():
		return bound{tag: rpc.BlockNumber(b.Int64())}
	}
	return bound{tag: rpc.PendingBlockNumber} // not reachable through go-ethereum's decoding; the node decides
}

var (
	emptyArray        = json.RawMessage("[]")
	errNoSuchBlock    = errors.New("the node knows no block for this tag")
	errNotBlockNumber = errors.New("not a block number")
)

// resolver turns tags into numbers by asking the node, once per tag and query.
type resolver struct {
	call Fetch
	seen map[rpc.BlockNumber]uint64
}

// resolve returns the block number of b. latest is asked with the EVM
// family's head method (eth_blockNumber); the other tags with
// eth_getBlockByNumber(tag, false), whose answer is parsed for its number
// only.
func (r *resolver) resolve(ctx context.Context, b bound) (uint64, error) {
	if b.isNum {
		return b.num, nil
	}
	if n, ok := r.seen[b.tag]; ok {
		return n, nil
	}
	var (
		n   uint64
		err error
	)
	if b.tag == rpc.LatestBlockNumber {
		n, err = r.blockNumber(ctx)
	} else {
		n, err = r.blockByTag(ctx, b.tag)
	}
	if err != nil {
		return 0, err
	}
	if r.seen == nil {
		r.seen = make(map[rpc.BlockNumber]uint64, 2)
	}
	r.seen[b.tag] = n
	return n, nil
}

func (r *resolver) blockNumber(ctx context.Context) (uint64, error) {
	resp := r.call(ctx, familykind.EVM.HeadMethod, emptyArray) // eth_getLogs is the EVM family's
	if resp.Err != nil {
		return 0, resp.Err
	}
	return parseQuantity(resp.Result)
}

func (r *resolver) blockByTag(ctx context.Context, tag rpc.BlockNumber) (uint64, error) {
	params := make([]byte, 0, 32)
	params = append(params, `["`...)
	params = append(params, tag.String()...)
	params = append(params, `",false]`...)
	resp := r.call(ctx, "eth_getBlockByNumber", params)
	if resp.Err != nil {
		return 0, resp.Err
	}
	return parseBlockNumber(resp.Result)
}

// parseQuantity reads a JSON quantity string such as "0x1b4".
func parseQuantity(raw []byte) (uint64, error) {
	var q hexutil.Uint64
	if err := json.Unmarshal(raw, &q); err != nil {
		return 0, errors.Join(errNotBlockNumber, err)
	}
	return uint64(q), nil
}

// numbered is the one field read from a block or a log.
type numbered struct {
	Number      *hexutil.Uint64 `json:"number"`
	BlockNumber *hexutil.Uint64 `json:"blockNumber"`
}

// parseBlockNumber reads the number of a block object; null is no block.
func parseBlockNumber(raw []byte) (uint64, error) {
	var b numbered
	if string(raw) == "null" {
		return 0, errNoSuchBlock
	}
	if err := json.Unmarshal(raw, &b); err != nil || b.Number == nil {
		return 0, errors.Join(errNotBlockNumber, err)
	}
	return uint64(*b.Number), nil
}

// parseLogBlock reads the blockNumber of a log object (null for a pending log).
func parseLogBlock(raw []byte) (uint64, error) {
	var l numbered
	if err := json.Unmarshal(raw, &l); err != nil || l.BlockNumber == nil {
		return 0, errors.Join(errNotBlockNumber, err)
	}
	return uint64(*l.BlockNumber), nil
}
