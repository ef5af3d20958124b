package cache

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Which methods may be cached, and how their answers are judged, are
// facts of each method's rule (methods.Rule: Cacheable, Block, Proves):
// a method naming its block at a param must name a number at or below
// finalized (any non-null answer is then final); an eth_getLogs-like
// filter must have numeric fromBlock and toBlock both at or below it; a
// method naming its block by hash is judged on its answer, whose Proves
// field must be at or below it. Tags ("latest", "safe", even "finalized")
// are never cached: only numbers.

// Methods are the methods of table the cache can keep (the default list).
func Methods(table *methods.Table) []string {
	var out []string
	table.Each(func(r *methods.Rule) {
		if r.Cacheable {
			out = append(out, r.Name)
		}
	})
	return out
}

// Known reports whether method is one of table the cache can keep.
func Known(table *methods.Table, method string) bool {
	r, err := table.Lookup(method)
	return err == nil && r.Cacheable
}

// Before reports whether a call of rule r may have a final answer at all,
// judging its params against the finalized block number: when it returns
// false the cache is neither read nor written for the call.
func Before(r *methods.Rule, params []byte, finalized uint64) bool {
	if r == nil || !r.Cacheable || finalized == 0 {
		return false
	}
	if i, ok := r.Block.Param(); ok {
		n, ok := blockParam(params, i)
		return ok && n <= finalized
	}
	if r.Block == methods.BlockLogFilter {
		return logsFinal(params, finalized)
	}
	return r.Proves != "" // judged on the answer
}

// After reports whether an answer to a call of rule r may be kept: never
// errors, never null, and for answers that name their block, a block at or
// below finalized.
func After(r *methods.Rule, resp *jsonrpc.Response, finalized uint64) bool {
	if r == nil || resp == nil || resp.Err != nil || len(resp.Result) == 0 || string(resp.Result) == "null" {
		return false
	}
	if r.Block != methods.BlockNone {
		return true
	}
	var n uint64
	found := false
	_ = jsonrpc.Fields(resp.Result, func(key, value []byte) bool {
		if string(key) != r.Proves { // raw key: an escaped spelling does not count
			return true
		}
		n, found = quantity(value)
		return false
	})
	return found && n <= finalized
}

// BlockOf is the block an answer to a call of rule r with params is
// about, for its entry: the block the call names by number (an
// eth_getLogs filter: its toBlock), else the block its answer names (its
// Proves field); the hash is the answer's beside it ("hash" beside
// "number", "blockHash" beside "blockNumber"), zero when it has none.
func BlockOf(r *methods.Rule, params []byte, resp *jsonrpc.Response) (Block, bool) {
	if r == nil || resp == nil {
		return Block{}, false
	}
	var b Block
	named := false
	if i, ok := r.Block.Param(); ok {
		b.Number, named = blockParam(params, i)
		if !named {
			return Block{}, false
		}
	} else if r.Block == methods.BlockLogFilter {
		n, ok := logsTo(params)
		return Block{Number: n}, ok
	}
	if r.Proves == "" || r.Proves == methods.ProvesHead {
		return b, named
	}
	hashField := "hash"
	if r.Proves == "blockNumber" {
		hashField = "blockHash"
	}
	var gotN, gotH bool
	var n uint64
	_ = jsonrpc.Fields(resp.Result, func(key, value []byte) bool {
		switch string(key) {
		case r.Proves:
			n, gotN = quantity(value)
		case hashField:
			var h common.Hash
			if err := h.UnmarshalJSON(value); err == nil {
				b.Hash, gotH = h, true
			}
		}
		return !(gotN && gotH)
	})
	switch {
	case named:
		if gotN && n != b.Number {
			return Block{}, false // the answer is about another block than the one named
		}
		return b, true
	case gotN:
		b.Number = n
		return b, true
	}
	return Block{}, false
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
	to, ok := logsTo(params)
	return ok && to <= finalized
}

// logsTo is the toBlock of a filter whose range every node reads alike
// (see logsFinal).
func logsTo(params []byte) (uint64, bool) {
	filter := jsonrpc.Element(params, 0)
	if filter == nil {
		return 0, false
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
	return to.n, err == nil && ok && from.exact && to.exact && from.n <= to.n
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
