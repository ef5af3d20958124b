package upstream

import (
	"encoding/json"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The rule of what proves a head: an answer raises its member's head only
// when it shows a block the member has mined. The pending block (its
// number is the head's plus one) and whatever the pending state holds are
// not mined: a call that names "pending" proves nothing, whatever it
// answers, and neither does a block without its hash (go-ethereum's
// answer for the pending block) or a transaction or receipt without the
// hash of the block that holds it.

// provenHeadOf is the block number that answer resp to a call of kind k
// with params proves its member has mined (false when it proves nothing).
func provenHeadOf(k kind, params json.RawMessage, resp *jsonrpc.Response) (uint64, bool) {
	if k.Proves == "" || namesPending(k, params) {
		return 0, false
	}
	if k.Proves != methods.ProvesHead && !minedAnswer(k, resp.Result) {
		return 0, false
	}
	return k.provenHead(resp)
}

// pendingTag is the block tag of the block being built.
const pendingTag = `"pending"`

// namesPending reports whether a call of kind k asks about the pending
// block: its block param (a tag, or an EIP-1898 object's blockNumber), or
// an eth_getLogs filter's fromBlock or toBlock.
func namesPending(k kind, params json.RawMessage) bool {
	switch {
	case len(params) == 0 || k.Block == methods.BlockNone || k.Block == methods.BlockChain:
		return false
	case k.Block == methods.BlockLogFilter:
		found := false
		if filter := jsonrpc.Element(params, 0); len(filter) > 0 && filter[0] == '{' {
			_ = jsonrpc.Fields(filter, func(key, value []byte) bool {
				if (string(key) == "fromBlock" || string(key) == "toBlock") && string(value) == pendingTag {
					found = true
					return false
				}
				return true
			})
		}
		return found
	}
	i, _ := k.Block.Param()
	v := jsonrpc.Element(params, i)
	if len(v) > 0 && v[0] == '{' {
		found := false
		_ = jsonrpc.Fields(v, func(key, value []byte) bool {
			if string(key) == "blockNumber" {
				found = string(value) == pendingTag
				return false
			}
			return true
		})
		return found
	}
	return string(v) == pendingTag
}

// minedAnswer reports whether result, an object whose field k.Proves holds
// a block number, shows a mined block: a block with its hash ("number"
// beside "hash"), a transaction or receipt with its block's hash
// ("blockNumber" beside "blockHash").
func minedAnswer(k kind, result json.RawMessage) bool {
	hashField := "hash"
	if k.Proves == "blockNumber" {
		hashField = "blockHash"
	}
	mined := false
	_ = jsonrpc.Fields(result, func(key, value []byte) bool {
		if string(key) != hashField {
			return true
		}
		mined = len(value) > 2 && value[0] == '"'
		return false
	})
	return mined
}

// contradicted is told that a member's own reports contradicted head, a
// head it had only been credited with by an answer: the pool's mark, when
// no other member has that head (or had it before going out of service),
// falls back to the highest head one has, so that calls at the head are
// not held for lag_memory waiting for a block no member has.
func (p *Pool) contradicted(head uint64) {
	for {
		mark := p.highWater.Load()
		if mark > head {
			return // set higher by another member
		}
		var held uint64
		for _, m := range p.members {
			held = max(held, m.Head())
		}
		if held >= mark || p.highWater.CompareAndSwap(mark, held) {
			return
		}
	}
}
