package methods_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The embedded go-ethereum node is the oracle for params: what its rpc
// server accepts, the gateway must accept, and where both refuse, the
// gateway must say what the node says.

var (
	nodeOnce sync.Once
	node     *evmnode.Node
	nodeErr  error
)

// oracleNode starts one dev-chain node for the whole test binary; it is
// never closed (the process exit ends it), which keeps fuzz workers cheap.
func oracleNode(t testing.TB) *evmnode.Node {
	t.Helper()
	nodeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		node, nodeErr = evmnode.Start(ctx, evmnode.Config{})
	})
	if nodeErr != nil {
		t.Fatalf("start embedded node: %v", nodeErr)
	}
	return node
}

// gethAnswer sends method(params) to the node and returns its answer.
func gethAnswer(t testing.TB, n *evmnode.Node, method string, params []byte) jsonrpc.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := n.Do(ctx, jsonrpc.AppendRequest(nil, 1, method, params))
	if err != nil {
		t.Fatalf("node %s %s: %v", method, params, err)
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		t.Fatalf("node answered %q: %v", out, err)
	}
	return resp
}

// gethVerdict sends method(params) to the node and returns the -32602
// error it answers, or nil when it got past parameter decoding.
func gethVerdict(t testing.TB, n *evmnode.Node, method string, params []byte) *jsonrpc.Error {
	t.Helper()
	if resp := gethAnswer(t, n, method, params); resp.Err != nil && resp.Err.Code == jsonrpc.CodeInvalidParams {
		return resp.Err
	}
	return nil
}

// specException lists the one place where docs/spec.md is stricter than
// go-ethereum: eth_call's block parameter "is required" by the spec, while
// the node defaults an absent or null one to latest.
func specException(method string, params []byte) bool {
	if method != "eth_call" {
		return false
	}
	var elems []json.RawMessage
	if json.Unmarshal(params, &elems) != nil {
		return false
	}
	return len(elems) == 1 || (len(elems) >= 2 && string(elems[1]) == "null")
}

// nodeOnlyChecks are refusals that depend on the chain (block ranges) or
// that go-ethereum makes inside the method rather than when decoding: the
// gateway forwards these and the client gets the node's own answer.
var nodeOnlyChecks = []string{"invalid block range params", "pending logs are not supported", "block range extends beyond current head block"}

func nodeOnly(msg string) bool {
	for _, m := range nodeOnlyChecks {
		if msg == m {
			return true
		}
	}
	return false
}

// compareWithGeth checks one params value against the node. It returns a
// description of a disagreement, or "" when they agree.
func compareWithGeth(t testing.TB, n *evmnode.Node, method string, params []byte) string {
	t.Helper()
	rule, lerr := methods.NewTable(methods.FamilyEVM).Lookup(method)
	if lerr != nil {
		t.Fatalf("lookup %s: %v", method, lerr)
	}
	parsed, ours := rule.Check(params)
	if d := parsed.Deferred(); ours == nil && d != nil {
		// The gateway answers the node's error for the call with a valid
		// value there (an unknown block), else d.Err: go-ethereum must
		// refuse the call, with d.Err where it refuses for that value.
		resp := gethAnswer(t, n, method, params)
		switch {
		case resp.Err == nil:
			return fmt.Sprintf("gateway refuses what go-ethereum accepts: %s", d.Err.Message)
		case resp.Err.Code == jsonrpc.CodeInvalidParams && resp.Err.Message != d.Err.Message:
			return fmt.Sprintf("wording differs:\n  gateway:      %s\n  go-ethereum:  %s", d.Err.Message, resp.Err.Message)
		case resp.Err.Code != jsonrpc.CodeInvalidParams && gethAnswer(t, n, method, withValue(params, d)).Err == nil:
			return fmt.Sprintf("go-ethereum answers %q, the node resolves the block: the gateway would say %q", resp.Err.Message, d.Err.Message)
		}
		return ""
	}
	theirs := gethVerdict(t, n, method, params)
	switch {
	case ours != nil && specException(method, params):
		return ""
	case ours != nil && theirs == nil:
		return fmt.Sprintf("gateway refuses what go-ethereum accepts: %s", ours.Message)
	case ours != nil && ours.Code != jsonrpc.CodeInvalidParams:
		return fmt.Sprintf("gateway answers code %d", ours.Code)
	case ours != nil && ours.Message != theirs.Message:
		return fmt.Sprintf("wording differs:\n  gateway:      %s\n  go-ethereum:  %s", ours.Message, theirs.Message)
	case ours == nil && theirs != nil && !nodeOnly(theirs.Message):
		return fmt.Sprintf("gateway forwards what go-ethereum refuses: %s", theirs.Message)
	}
	return ""
}

// withValue is params with d's placeholder in place of the deferred value,
// as the gateway asks the node.
func withValue(params []byte, d *methods.Deferred) []byte {
	var elems []json.RawMessage
	_ = json.Unmarshal(params, &elems)
	elems[d.Index] = d.Placeholder
	out, _ := json.Marshal(elems)
	return out
}

// Values used to build params.
const (
	addr  = `"0x00000000000000000000000000000000000000aa"`
	hash  = `"0x2222222222222222222222222222222222222222222222222222222222222222"`
	call  = `{"from":"0x00000000000000000000000000000000000000aa","to":"0x00000000000000000000000000000000000000bb","data":"0x"}`
	index = `"0x0"`
)

// badHashes are hash32 spellings go-ethereum refuses.
var badHashes = []string{
	`"0x222"`, // odd
	`"0x` + strings.Repeat("22", 31) + `"`,
	`"0x` + strings.Repeat("22", 33) + `"`,
	`"` + strings.Repeat("22", 32) + `"`, // no 0x
	`"0x` + strings.Repeat("zz", 32) + `"`,
	`"0x"`, `""`, `1`, `null`, `true`, `{}`, `[]`, `["0x00"]`,
}

var goodHashes = []string{hash, `"0X` + strings.Repeat("AB", 32) + `"`, `"0x` + strings.Repeat("Ab", 32) + `"`}

// blockNumbers are block parameter spellings, good and bad.
var blockNumbers = []string{
	`"latest"`, `"earliest"`, `"pending"`, `"safe"`, `"finalized"`,
	`"0x0"`, `"0x1"`, `"0x1B4"`, `"0X1b4"`, `"0x7fffffffffffffff"`,
	`"0x00"`, `"0x"`, `"0x8000000000000000"`, `"0x10000000000000000"`, `"-0x1"`, `"0x-1"`,
	`"LATEST"`, `"Latest"`, `"1"`, `""`, `"0xzz"`, `1`, `-1`, `1.5`, `null`, `true`, `{}`, `[]`,
}

// blockRefs are the block-number-or-hash spellings on top of blockNumbers.
var blockRefs = append(append([]string{}, blockNumbers...),
	`{"blockHash":`+hash+`}`,
	`{"blockHash":`+hash+`,"requireCanonical":true}`,
	`{"blockHash":`+hash+`,"requireCanonical":"yes"}`,
	`{"blockNumber":"0x0"}`,
	`{"blockNumber":"latest"}`,
	`{"blockHash":`+hash+`,"blockNumber":"0x0"}`,
	`{"blockHash":"0x12"}`,
	`{"blockNumber":"0x00"}`,
	`{"blockNumber":1}`,
)

// quantities are index spellings, good and bad (hexutil.Uint).
var quantities = []string{
	`"0x0"`, `"0x1"`, `"0xA"`, `"0Xa"`, `"0xffffffffffffffff"`,
	`"0x00"`, `"0x01"`, `"0x"`, `"0x10000000000000000"`, `"1"`, `""`, `"0xg"`, `1`, `-1`, `null`, `[]`,
}

// storageKeys are eth_getStorageAt positions, good and bad.
var storageKeys = []string{
	`"0x0"`, `"0x"`, `"0"`, `""`, `"0x00"`, `"0X1"`, `"1b4"`, `"0x1B4"`,
	`"0x` + strings.Repeat("f", 63) + `"`, `"0x` + strings.Repeat("f", 64) + `"`, `"0x` + strings.Repeat("f", 65) + `"`,
	`"0xzz"`, `"0x0g"`, `0`, `null`, `{}`,
}

var addresses = []string{
	addr, `"0x00000000000000000000000000000000000000AA"`, `"0xaa"`, `"0x` + strings.Repeat("a", 41) + `"`,
	`"` + strings.Repeat("a", 40) + `"`, `"0x` + strings.Repeat("g", 40) + `"`, `1`, `null`, `""`,
}

var filters = []string{
	`{}`, `{"fromBlock":"0x0","toBlock":"latest"}`, `{"fromBlock":"earliest","toBlock":"pending"}`,
	`{"fromBlock":"0x1B4"}`, `{"fromBlock":"0x00"}`, `{"toBlock":1}`, `{"fromBlock":"safe","toBlock":"finalized"}`,
	`{"blockHash":` + hash + `}`, `{"blockHash":` + hash + `,"fromBlock":"0x0"}`, `{"blockHash":` + hash + `,"toBlock":"latest"}`,
	`{"blockHash":"0x12"}`,
	`{"address":` + addr + `}`, `{"address":[` + addr + `,` + addr + `]}`, `{"address":[]}`, `{"address":"0x12"}`,
	`{"address":1}`, `{"address":[1]}`, `{"address":["0x12"]}`, `{"address":{}}`, `{"address":null}`,
	`{"topics":[` + hash + `]}`, `{"topics":[[` + hash + `,` + hash + `],null]}`, `{"topics":[null,null,null,null]}`,
	`{"topics":[null,null,null,null,null]}`, `{"topics":["0x12"]}`, `{"topics":[1]}`, `{"topics":[[1]]}`, `{"topics":"x"}`,
	`{"topics":[[]]}`, `{"topics":[[null]]}`,
	`{"unknown":1}`, `"x"`, `[]`, `null`, `1`,
}

var callObjects = []string{
	call, `{}`, `{"to":` + addr + `}`, `{"to":null}`, `{"from":` + addr + `}`, `{"to":"0x12"}`, `{"from":1}`,
	`{"gas":"0x5208"}`, `{"gas":"0x00"}`, `{"gas":21000}`, `{"gas":"0x10000000000000000"}`,
	`{"gasPrice":"0x1"}`, `{"gasPrice":"0x"}`, `{"value":"0x1"}`, `{"value":"1"}`, `{"value":"0x` + strings.Repeat("f", 65) + `"}`,
	`{"nonce":"0x1"}`, `{"nonce":"x"}`,
	`{"data":"0x1"}`, `{"data":"0x12"}`, `{"data":"12"}`, `{"input":"0x12"}`, `{"input":"zz"}`, `{"data":"0x12","input":"0x12"}`,
	`{"maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"}`, `{"maxFeePerGas":"1"}`,
	`{"accessList":[{"address":` + addr + `,"storageKeys":[` + hash + `]}]}`, `{"accessList":"x"}`, `{"accessList":[{"address":"0x1"}]}`,
	`{"chainId":"0x539"}`, `{"chainId":"x"}`, `{"blobVersionedHashes":[` + hash + `]}`, `{"blobVersionedHashes":["0x1"]}`,
	`{"maxFeePerBlobGas":"0x1"}`, `{"authorizationList":[]}`, `{"authorizationList":"x"}`,
	`{"unknownField":1}`, `{"TO":` + addr + `}`, `"x"`, `[]`, `null`, `1`,
	// The blob sidecar fields are decoded as go-ethereum decodes them.
	`{"blobs":"x"}`, `{"blobs":["0x12"]}`, `{"blobs":[1]}`, `{"blobs":[]}`, `{"blobs":null}`,
	`{"commitments":1}`, `{"commitments":["0x12"]}`, `{"commitments":["0x` + strings.Repeat("ab", 48) + `"]}`,
	`{"proofs":[1]}`, `{"proofs":"0x"}`, `{"proofs":["0x` + strings.Repeat("ab", 48) + `"]}`, `{"PROOFS":{}}`,
}

// overrides are state overrides (eth_call's third param), then block
// overrides (its fourth), decoded field by field as go-ethereum does.
var overrides = []string{`{}`, `null`, `"x"`, `1`, `[]`, `true`, `{"0x12":{}}`, `{` + addr + `:{}}`, `{` + addr + `:1}`,
	`{` + addr + `:{"nonce":"x"}}`, `{` + addr + `:{"balance":1}}`, `{` + addr + `:{"code":"0x1"}}`, `{` + addr + `:{"code":"0x60"}}`,
	`{` + addr + `:{"state":{"0x1":"0x2"}}}`, `{` + addr + `:{"stateDiff":[]}}`, `{` + addr + `:{"movePrecompileToAddress":"0x1"}}`,
	`{` + addr + `:{"unknown":1,"BALANCE":"0x1"}}`,
}

var blockOverrides = []string{`{}`, `null`, `"x"`, `[]`, `{"number":"x"}`, `{"Number":"0x1"}`, `{"time":1}`, `{"gasLimit":"0x1"}`,
	`{"feeRecipient":"0x1"}`, `{"prevRandao":"0x1"}`, `{"baseFeePerGas":"1"}`, `{"blobBaseFee":"0x1"}`, `{"beaconRoot":1}`,
	`{"withdrawals":"x"}`, `{"withdrawals":[{"index":"0x1"}]}`, `{"unknown":1}`,
}

// oracleCases builds, per method, params that vary one argument at a time
// around a valid call, plus missing and extra arguments.
func oracleCases() map[string][]string {
	arr := func(xs ...string) string { return "[" + strings.Join(xs, ",") + "]" }
	c := map[string][]string{}
	add := func(m string, ps ...string) { c[m] = append(c[m], ps...) }
	common := []string{`[]`, `[null]`, `[1,2,3,4,5,6]`}
	for _, m := range []string{"eth_getStorageAt", "eth_getLogs", "eth_getUncleByBlockNumberAndIndex",
		"eth_getTransactionByBlockHashAndIndex", "eth_getTransactionByBlockNumberAndIndex",
		"eth_getTransactionByHash", "eth_getTransactionReceipt", "eth_estimateGas", "eth_call"} {
		add(m, common...)
	}
	for _, a := range addresses {
		add("eth_getStorageAt", arr(a, `"0x0"`, `"latest"`))
	}
	for _, k := range storageKeys {
		add("eth_getStorageAt", arr(addr, k, `"latest"`), arr(addr, k))
	}
	for _, b := range blockRefs {
		add("eth_getStorageAt", arr(addr, `"0x0"`, b))
		add("eth_estimateGas", arr(call, b))
		add("eth_call", arr(call, b))
	}
	add("eth_getStorageAt", arr(addr), arr(addr, `"0x0"`, `"latest"`, `1`), arr(addr, `"0xzz"`, `"0x00"`))
	// go-ethereum resolves the block before it reads the storage key: an
	// unknown block is its answer, whatever the key.
	for _, k := range storageKeys {
		for _, b := range []string{`"0x7fffffff"`, `{"blockHash":` + hash + `}`, `{"blockNumber":"0x7fffffff"}`, `"finalized"`, `"pending"`} {
			add("eth_getStorageAt", arr(addr, k, b))
		}
	}
	for _, f := range filters {
		add("eth_getLogs", arr(f))
	}
	add("eth_getLogs", arr(`{}`, `{}`))
	// Filters: eth_newFilter decodes eth_getLogs's filter object; the id
	// methods decode an rpc.ID.
	for _, f := range filters {
		add("eth_newFilter", arr(f))
	}
	add("eth_newFilter", `[]`, `[null]`, arr(`{}`, `{}`))
	for _, m := range []string{"eth_getFilterLogs", "eth_getFilterChanges", "eth_uninstallFilter"} {
		add(m, `[]`, `[null]`, `["0x1"]`, `[""]`, `[1]`, `[{}]`, `[[]]`, `[true]`, `["0x1","0x2"]`, `["0x1",null]`)
	}
	for _, m := range []string{"eth_getUncleByBlockNumberAndIndex", "eth_getTransactionByBlockNumberAndIndex"} {
		for _, b := range blockNumbers {
			add(m, arr(b, index))
		}
		for _, q := range quantities {
			add(m, arr(`"latest"`, q))
		}
		add(m, arr(`"latest"`), arr(`"latest"`, index, index), arr(`{"blockHash":`+hash+`}`, index))
	}
	for _, h := range append(append([]string{}, goodHashes...), badHashes...) {
		add("eth_getTransactionByBlockHashAndIndex", arr(h, index))
		add("eth_getTransactionByHash", arr(h))
		add("eth_getTransactionReceipt", arr(h))
	}
	for _, q := range quantities {
		add("eth_getTransactionByBlockHashAndIndex", arr(hash, q))
	}
	add("eth_getTransactionByBlockHashAndIndex", arr(hash), arr(hash, index, index))
	add("eth_getTransactionByHash", arr(hash, hash))
	add("eth_getTransactionReceipt", arr(hash, `null`))
	for _, m := range []string{"eth_estimateGas", "eth_call"} {
		for _, o := range callObjects {
			add(m, arr(o, `"latest"`))
		}
		for _, o := range overrides {
			add(m, arr(call, `"latest"`, o), arr(call, `"latest"`, o, `"x"`))
		}
		for _, o := range blockOverrides {
			add(m, arr(call, `"latest"`, `{}`, o), arr(call, `"latest"`, `null`, o, `1`))
		}
		// Doubly malformed: go-ethereum blames the first bad argument, read
		// to its last field.
		for _, o := range []string{`{"blobs":"x"}`, `{"commitments":[1]}`, `{"proofs":["0x12"]}`} {
			add(m, arr(o, `"0xzz"`), arr(o, `"latest"`, `"x"`))
		}
		add(m, arr(call, `"latest"`, `{`+addr+`:{"balance":1}}`, `"x"`), arr(call, `"latest"`, `{}`, `{"time":"x"}`, `1`))
		add(m, arr(call), arr(call, `null`), arr(call, `"latest"`, `{}`, `{}`, `{}`))
	}
	return c
}

// TestParamsAgainstGeth runs every case through the gateway's rules and the
// node: go-ethereum's acceptance must imply ours, and refusals must agree.
func TestParamsAgainstGeth(t *testing.T) {
	n := oracleNode(t)
	for method, cases := range oracleCases() {
		t.Run(method, func(t *testing.T) {
			for _, p := range cases {
				if d := compareWithGeth(t, n, method, []byte(p)); d != "" {
					t.Errorf("%s %s: %s", method, p, d)
				}
			}
		})
	}
}
