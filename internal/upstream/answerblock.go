package upstream

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// An answer judged by (number, hash): a block (its "number" and "hash"),
// a transaction or receipt (its "blockNumber" and "blockHash") names a
// block of its member's chain. When the canonical chain holds that height
// with another hash, the member that gave the answer is on another branch:
// its answer is a lag answer, asked of a member on the canonical branch
// (send.go) and never cached (cache.go's Final).

// answerBlock is the block an answer of kind k names: the number of its
// Proves field and the hash beside it, read in one pass over the answer's
// top-level fields (ok false when either is missing: a pending block, a
// pending transaction, a method that names no block).
func (k kind) answerBlock(result json.RawMessage) (n uint64, h common.Hash, ok bool) {
	if k.Proves == "" || k.Proves == methods.ProvesHead || len(result) == 0 || result[0] != '{' {
		return 0, common.Hash{}, false
	}
	hashField := "hash"
	if k.Proves == "blockNumber" {
		hashField = "blockHash"
	}
	var gotN, gotH bool
	_ = jsonrpc.Fields(result, func(key, value []byte) bool {
		switch string(key) {
		case k.Proves:
			n, gotN = quantity(value)
		case hashField:
			h, gotH = hashValue(value)
		}
		return !(gotN && gotH)
	})
	return n, h, gotN && gotH
}

// hashValue reads a JSON string holding a 32-byte hex hash, without
// allocating.
func hashValue(v []byte) (common.Hash, bool) {
	var h common.Hash
	if len(v) != 2+2+64 || v[0] != '"' || v[1] != '0' || (v[2] != 'x' && v[2] != 'X') || v[len(v)-1] != '"' {
		return h, false
	}
	for i := range h {
		hi, ok1 := HexDigit(v[3+2*i])
		lo, ok2 := HexDigit(v[4+2*i])
		if !ok1 || !ok2 {
			return common.Hash{}, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

// offCanonical reports whether resp, an answer to a call of kind k with
// params, names a block whose hash is not the canonical one at its height
// (the window holds that height with another hash), and that height.
func (p *Pool) offCanonical(k kind, params json.RawMessage, resp *jsonrpc.Response) (uint64, bool) {
	if resp.Err != nil || k.Proves == "" || k.Proves == methods.ProvesHead {
		return 0, false
	}
	n, h, ok := k.answerBlock(resp.Result)
	if !ok || namesPending(k, params) {
		return 0, false
	}
	c := p.canon
	c.mu.Lock()
	ch, held := c.at(n)
	c.mu.Unlock()
	return n, held && ch != h
}
