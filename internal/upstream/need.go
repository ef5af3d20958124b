package upstream

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// What the pool knows of a call besides its bytes: the block it names (a
// member must have it to answer), whether a lagging member's answer to it
// looks like a real one (a null, "beyond current head"), and what its
// answer proves of the member's head (docs/pools.md, "One view of the
// chain").

// Call is one call as the pool routes it.
type Call struct {
	// Body is the JSON-RPC request sent to a member.
	Body []byte
	// Rule is the call's method's rule: the pool reads what the method
	// says about blocks from it (methods.Rule's Block, Proves, Lookup,
	// Write, AnswersHash). Nil: nothing is known, the call is answered at
	// the head and its answer taken as it is.
	Rule *methods.Rule
	// Params are the call's, as the client sent them: the pool reads the
	// block the call names from them (not the body).
	Params json.RawMessage
	// Idempotent calls may be retried on another member.
	Idempotent bool
}

// kind is what the pool knows of a call's method: the facts on its rule.
type kind struct{ *methods.Rule }

// unknown is the kind of a call without a rule: no block, nothing known.
var unknown methods.Rule

// kindOf is the kind of a call of rule r (nil: unknown).
func kindOf(r *methods.Rule) kind {
	if r == nil {
		return kind{&unknown}
	}
	return kind{r}
}

// blockRef is the block a call names: a number (named), or none or a tag
// or a hash (the call is answered at the head).
type blockRef struct {
	number uint64
	named  bool
	// tag is the finality tag a call names (tagSafe, tagFinalized;
	// finality.go), tagNone otherwise.
	tag blockTag
}

// blockOf reads the block a call of kind k names from its params. Only
// numbers (and "earliest") name a block: "latest", "safe", "finalized",
// "pending", a block hash or a missing param ask for the head.
func (k kind) blockOf(params json.RawMessage) blockRef {
	switch {
	case k.Block == methods.BlockChain:
		return blockRef{number: 0, named: true}
	case k.Block == methods.BlockNone || len(params) == 0:
		return blockRef{}
	case k.Block == methods.BlockLogFilter:
		if filter := jsonrpc.Element(params, 0); filter != nil {
			return logsBlock(filter)
		}
		return blockRef{}
	}
	i, _ := k.Block.Param()
	return blockValue(jsonrpc.Element(params, i))
}

// blockValue reads a block param: a quantity or tag string, or an EIP-1898
// object ({"blockNumber": …} names a block, {"blockHash": …} does not).
func blockValue(v []byte) blockRef {
	if len(v) == 0 {
		return blockRef{}
	}
	if v[0] == '{' {
		var ref blockRef
		_ = jsonrpc.Fields(v, func(key, value []byte) bool {
			if string(key) == "blockNumber" {
				ref = blockValue(value)
				return false
			}
			return true
		})
		return ref
	}
	switch string(v) {
	case `"earliest"`:
		return blockRef{number: 0, named: true}
	case `"safe"`:
		return blockRef{tag: tagSafe}
	case `"finalized"`:
		return blockRef{tag: tagFinalized}
	}
	if n, ok := quantity(v); ok {
		return blockRef{number: n, named: true}
	}
	return blockRef{}
}

// logsBlock is the block an eth_getLogs filter needs a member to have: its
// toBlock when that is a number (a missing toBlock, a tag or a blockHash
// ask for the head).
func logsBlock(filter []byte) blockRef {
	var ref blockRef
	_ = jsonrpc.Fields(filter, func(key, value []byte) bool {
		switch string(key) {
		case "toBlock":
			ref = blockValue(value)
		case "blockHash":
			ref = blockRef{}
			return false
		}
		return true
	})
	if ref.named && ref.number == 0 {
		return blockRef{} // toBlock "earliest" alone is not a range worth pinning
	}
	return ref
}

// quantity reads a JSON string holding a hex quantity ("0x1f").
func quantity(v []byte) (uint64, bool) {
	if len(v) < 4 || v[0] != '"' || v[len(v)-1] != '"' || v[1] != '0' || v[2] != 'x' {
		return 0, false
	}
	n, err := hexutil.DecodeUint64(string(v[1 : len(v)-1]))
	return n, err == nil
}

// provenHead is the block number a good answer of kind k proves its member
// has (false when the answer proves nothing).
func (k kind) provenHead(resp *jsonrpc.Response) (uint64, bool) {
	if k.Proves == "" || resp.Err != nil || len(resp.Result) == 0 || resp.Result[0] == 'n' {
		return 0, false
	}
	if k.Proves == methods.ProvesHead {
		if resp.Result[0] == '"' {
			return quantity(resp.Result)
		}
		n, err := strconv.ParseUint(string(resp.Result), 10, 64)
		return n, err == nil
	}
	var (
		n  uint64
		ok bool
	)
	_ = jsonrpc.Fields(resp.Result, func(key, value []byte) bool {
		if string(key) != k.Proves {
			return true
		}
		n, ok = quantity(value)
		return false
	})
	return n, ok
}

// lagMessages are error texts with which a member says it has not reached
// what the call asks for: another member ahead of it may have. "header
// not found" and "unknown block" are also node faults (classify.go), retried
// as such.
var lagMessages = []string{
	"beyond current head",
	"block not found",
	"transaction hash not found",
}

// lagAnswer reports whether resp, a member's answer to a call of kind k,
// may only mean that the member lags: a null from a lookup, or an error
// saying the block is beyond the member's head.
func (k kind) lagAnswer(resp *jsonrpc.Response) bool {
	if resp.Err == nil {
		return k.Lookup && string(resp.Result) == "null"
	}
	msg := strings.ToLower(resp.Err.Message)
	for _, m := range lagMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
