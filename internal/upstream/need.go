package upstream

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
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
	// Method and Params are the call's, as the client sent them: the
	// pool reads the block the call names from them (not the body).
	Method string
	Params json.RawMessage
	// Idempotent calls may be retried on another member.
	Idempotent bool
}

// methodKind is what the pool knows of one method.
type methodKind struct {
	// block says where the method names its block: a position in its
	// params (0, 1, 2), logsFilter, or noBlock.
	block int8
	// lookup: a null answer (or a "not found" error) may come from a
	// member that has not reached the block or transaction yet.
	lookup bool
	// proves names the answer's field holding a block number the member
	// has ("" none; headResult: the result is the number, the head).
	proves string
	// write marks a signed transaction, sent to every member (broadcast.go);
	// answersHash, one whose answer is the transaction's hash.
	write, answersHash bool
}

const (
	noBlock    int8 = -1
	logsFilter int8 = -2
	// anyBlock: the answer is the chain's, not a block's (its id, a
	// node's version): any member in service may answer it.
	anyBlock   int8 = -3
	headResult      = "."
)

// kinds are the methods the pool treats by kind; every other method names
// no block (it is answered at the head) and its answers are taken as they
// are. Starknet methods name blocks by block_id objects the pool does not
// read: they are answered at the head.
var kinds = map[string]methodKind{
	"eth_chainId":          {block: anyBlock},
	"net_version":          {block: anyBlock},
	"web3_clientVersion":   {block: anyBlock},
	"starknet_chainId":     {block: anyBlock},
	"starknet_specVersion": {block: anyBlock},

	"eth_blockNumber":      {block: noBlock, proves: headResult},
	"starknet_blockNumber": {block: noBlock, proves: headResult},

	"eth_getBlockByNumber":                       {block: 0, lookup: true, proves: "number"},
	"eth_getHeaderByNumber":                      {block: 0, lookup: true, proves: "number"},
	"eth_getBlockByHash":                         {block: noBlock, lookup: true, proves: "number"},
	"eth_getHeaderByHash":                        {block: noBlock, lookup: true, proves: "number"},
	"eth_getTransactionByHash":                   {block: noBlock, lookup: true, proves: "blockNumber"},
	"eth_getTransactionReceipt":                  {block: noBlock, lookup: true, proves: "blockNumber"},
	"eth_getRawTransactionByHash":                {block: noBlock, lookup: true},
	"eth_getTransactionByBlockHashAndIndex":      {block: noBlock, lookup: true, proves: "blockNumber"},
	"eth_getTransactionByBlockNumberAndIndex":    {block: 0, lookup: true, proves: "blockNumber"},
	"eth_getRawTransactionByBlockHashAndIndex":   {block: noBlock, lookup: true},
	"eth_getRawTransactionByBlockNumberAndIndex": {block: 0, lookup: true},
	"eth_getBlockTransactionCountByHash":         {block: noBlock, lookup: true},
	"eth_getBlockTransactionCountByNumber":       {block: 0, lookup: true},
	"eth_getUncleByBlockHashAndIndex":            {block: noBlock, lookup: true},
	"eth_getUncleByBlockNumberAndIndex":          {block: 0, lookup: true},
	"eth_getUncleCountByBlockHash":               {block: noBlock, lookup: true},
	"eth_getUncleCountByBlockNumber":             {block: 0, lookup: true},
	"eth_getBlockReceipts":                       {block: 0, lookup: true},

	"eth_getBalance":          {block: 1},
	"eth_getCode":             {block: 1},
	"eth_getTransactionCount": {block: 1},
	"eth_call":                {block: 1},
	"eth_estimateGas":         {block: 1},
	"eth_createAccessList":    {block: 1},
	"eth_simulateV1":          {block: 1},
	"eth_feeHistory":          {block: 1},
	"eth_getStorageAt":        {block: 2},
	"eth_getProof":            {block: 2},
	"eth_getLogs":             {block: logsFilter},

	"eth_sendRawTransaction":            {block: noBlock, write: true, answersHash: true},
	"eth_sendRawTransactionConditional": {block: noBlock, write: true, answersHash: true},
	"eth_sendRawTransactionSync":        {block: noBlock, write: true}, // answers a receipt
}

// kindOf is method's kind; the zero kind (no block, nothing known) for
// methods the pool does not treat by kind.
func kindOf(method string) methodKind {
	if k, ok := kinds[method]; ok {
		return k
	}
	return methodKind{block: noBlock}
}

// blockRef is the block a call names: a number (named), or none or a tag
// or a hash (the call is answered at the head).
type blockRef struct {
	number uint64
	named  bool
}

// blockOf reads the block a call of kind k names from its params. Only
// numbers (and "earliest") name a block: "latest", "safe", "finalized",
// "pending", a block hash or a missing param ask for the head.
func (k methodKind) blockOf(params json.RawMessage) blockRef {
	switch {
	case k.block == anyBlock:
		return blockRef{number: 0, named: true}
	case k.block == noBlock || len(params) == 0:
		return blockRef{}
	}
	if k.block == logsFilter {
		if filter := jsonrpc.Element(params, 0); filter != nil {
			return logsBlock(filter)
		}
		return blockRef{}
	}
	return blockValue(jsonrpc.Element(params, int(k.block)))
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
	if string(v) == `"earliest"` {
		return blockRef{number: 0, named: true}
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
func (k methodKind) provenHead(resp *jsonrpc.Response) (uint64, bool) {
	if k.proves == "" || resp.Err != nil || len(resp.Result) == 0 || resp.Result[0] == 'n' {
		return 0, false
	}
	if k.proves == headResult {
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
		if string(key) != k.proves {
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
func (k methodKind) lagAnswer(resp *jsonrpc.Response) bool {
	if resp.Err == nil {
		return k.lookup && string(resp.Result) == "null"
	}
	msg := strings.ToLower(resp.Err.Message)
	for _, m := range lagMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
