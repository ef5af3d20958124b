package cache

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// check says how a method's answers are judged.
type check uint8

const (
	// atBlockParam: the params name a block by number (hex), which must be at
	// or below finalized; any non-null answer is then final.
	atBlockParam check = iota + 1
	// answerInBlock: the answer names its block ("blockNumber" or, for a
	// block, "number"), which must be at or below finalized.
	answerInBlock
	// logsRange: an eth_getLogs filter whose fromBlock and toBlock are both
	// numbers at or below finalized.
	logsRange
)

type methodPolicy struct {
	check check
	param int    // atBlockParam: position of the block param
	field string // answerInBlock: the answer's block number field
}

// policies are the methods whose answers may be cached, and how. Tags
// ("latest", "safe", even "finalized") are never cached: only numbers.
var policies = map[string]methodPolicy{
	"eth_getTransactionByHash":                {check: answerInBlock, field: "blockNumber"},
	"eth_getTransactionReceipt":               {check: answerInBlock, field: "blockNumber"},
	"eth_getBlockByHash":                      {check: answerInBlock, field: "number"},
	"eth_getTransactionByBlockHashAndIndex":   {check: answerInBlock, field: "blockNumber"},
	"eth_getTransactionByBlockNumberAndIndex": {check: atBlockParam, param: 0},
	"eth_getUncleByBlockNumberAndIndex":       {check: atBlockParam, param: 0},
	"eth_getBlockByNumber":                    {check: atBlockParam, param: 0},
	"eth_getBlockTransactionCountByNumber":    {check: atBlockParam, param: 0},
	"eth_getBlockReceipts":                    {check: atBlockParam, param: 0},
	"eth_getStorageAt":                        {check: atBlockParam, param: 2},
	"eth_call":                                {check: atBlockParam, param: 1},
	"eth_getBalance":                          {check: atBlockParam, param: 1},
	"eth_getCode":                             {check: atBlockParam, param: 1},
	"eth_getTransactionCount":                 {check: atBlockParam, param: 1},
	"eth_getLogs":                             {check: logsRange},
}

// Methods are the methods the cache can keep (the default list).
func Methods() []string {
	out := make([]string, 0, len(policies))
	for m := range policies {
		out = append(out, m)
	}
	return out
}

// Known reports whether method is one the cache can keep.
func Known(method string) bool {
	_, ok := policies[method]
	return ok
}

// Before reports whether a call may have a final answer at all, judging
// its params against the finalized block number: when it returns false
// the cache is neither read nor written for the call.
func Before(method string, params []byte, finalized uint64) bool {
	pol, ok := policies[method]
	if !ok || finalized == 0 {
		return false
	}
	switch pol.check {
	case atBlockParam:
		n, ok := blockParam(params, pol.param)
		return ok && n <= finalized
	case logsRange:
		return logsFinal(params, finalized)
	default:
		return true // judged on the answer
	}
}

// After reports whether an answer may be kept: never errors, never null,
// and for answers that name their block, a block at or below finalized.
func After(method string, resp *jsonrpc.Response, finalized uint64) bool {
	if resp == nil || resp.Err != nil || len(resp.Result) == 0 || string(resp.Result) == "null" {
		return false
	}
	pol := policies[method]
	if pol.check != answerInBlock {
		return true
	}
	var n uint64
	found := false
	_ = jsonrpc.Fields(resp.Result, func(key, value []byte) bool {
		if string(key) != pol.field { // raw key: an escaped spelling does not count
			return true
		}
		n, found = quantity(value)
		return false
	})
	return found && n <= finalized
}

// blockParam reads the block number at position i: only a hex number
// counts (a tag, a hash or an object does not).
func blockParam(params []byte, i int) (uint64, bool) {
	return quantity(jsonrpc.Element(params, i)) // none there: not a number
}

// logsFinal: a filter with numeric fromBlock and toBlock, both final, as
// every node reads it. go-ethereum decodes the filter with encoding/json:
// keys are matched without regard to case (Unicode folding, escapes
// decoded) and the last match wins; a case-sensitive parser reads only the
// exact spelling. So every key that folds to fromBlock (toBlock) must hold
// the same final number, the exact spellings must be there, and no key may
// fold to blockHash: {"toBlock":"0x180","TOBLOCK":"latest"} is not final.
func logsFinal(params []byte, finalized uint64) bool {
	filter := jsonrpc.Element(params, 0)
	if filter == nil {
		return false
	}
	var from, to bound
	ok := true
	err := jsonrpc.Fields(filter, func(raw, value []byte) bool {
		key := raw
		if bytes.IndexByte(raw, '\\') >= 0 {
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
				ok = false
				return false
			}
			key = []byte(s)
		}
		switch {
		case bytes.EqualFold(key, []byte("fromBlock")):
			ok = from.add(string(raw) == "fromBlock", value)
		case bytes.EqualFold(key, []byte("toBlock")):
			ok = to.add(string(raw) == "toBlock", value)
		case bytes.EqualFold(key, []byte("blockHash")):
			ok = false
		}
		return ok
	})
	return err == nil && ok && from.exact && to.exact && from.n <= to.n && to.n <= finalized
}

// bound is what the keys naming one end of a filter's range said.
type bound struct {
	n           uint64
	seen, exact bool
}

// add takes one key's value: it must be a number, the same as any other
// key's for this end.
func (b *bound) add(exact bool, value []byte) bool {
	n, ok := quantity(value)
	if !ok || (b.seen && n != b.n) {
		return false
	}
	b.n, b.seen, b.exact = n, true, b.exact || exact
	return true
}

// quantity reads a JSON string holding a hex quantity ("0x1f").
func quantity(raw []byte) (uint64, bool) {
	if len(raw) < 3 || raw[0] != '"' {
		return 0, false
	}
	var s string
	if bytes.IndexByte(raw, '\\') < 0 && raw[len(raw)-1] == '"' {
		s = string(raw[1 : len(raw)-1]) // no escapes: the common case, without encoding/json
	} else if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	if !strings.HasPrefix(s, "0x") {
		return 0, false
	}
	n, err := hexutil.DecodeUint64(s)
	if err != nil {
		return 0, false
	}
	return n, true
}
