package devnet

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/testenv"
)

// rpcResult is one decoded response.
type rpcResult struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func newTestDevnet(t *testing.T, cfg Config) *Devnet {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// call sends one request of the default version (0.10) and decodes the
// answer.
func call(t *testing.T, d *Devnet, method, params string) rpcResult {
	t.Helper()
	return callSpec(t, d.Do, method, params)
}

// call08 is call in version 0.8.
func call08(t *testing.T, d *Devnet, method, params string) rpcResult {
	t.Helper()
	return callSpec(t, d.Do08, method, params)
}

func callSpec(t *testing.T, do func(context.Context, []byte) ([]byte, error), method, params string) rpcResult {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	out, err := do(context.Background(), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var r rpcResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
	if string(r.ID) != "7" {
		t.Fatalf("id %s in %s", r.ID, out)
	}
	return r
}

func mustResult(t *testing.T, r rpcResult) json.RawMessage {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error %d %s", r.Error.Code, r.Error.Message)
	}
	return r.Result
}

func pendingCount(t *testing.T, d *Devnet) int {
	t.Helper()
	var txs []json.RawMessage
	if err := json.Unmarshal(mustResult(t, call(t, d, "starknet_pendingTransactions", "[]")), &txs); err != nil {
		t.Fatal(err)
	}
	return len(txs)
}

// TestDevnetRealTransactions submits the real mainnet transactions to a
// devnet with mainnet's chain id (each v1 after filler transactions that
// bring its sender to the transaction's nonce): each must come back with
// its real hash, be listed pending with the fields of docs/spec.md, and move
// into a block on devnet_createBlock.
func TestDevnetRealTransactions(t *testing.T) {
	d := newTestDevnet(t, Config{ChainID: "SN_MAIN"})
	want, real := submitMainnetVectors(t, func(tx string) string {
		return string(mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+tx+"]")))
	})
	if len(real) < 4 {
		t.Fatalf("%d real transactions", len(real))
	}
	var pending []map[string]json.RawMessage
	if err := json.Unmarshal(mustResult(t, call(t, d, "starknet_pendingTransactions", "[]")), &pending); err != nil {
		t.Fatal(err)
	}
	if len(pending) != len(want) {
		t.Fatalf("%d pending, want %d", len(pending), len(want))
	}
	for i, tx := range pending {
		checkTxnSchema(t, tx)
		if h := unquote(t, tx["transaction_hash"]); h != want[i] {
			t.Fatalf("pending[%d] hash %s, want %s", i, h, want[i])
		}
	}
	if n := string(mustResult(t, call(t, d, "starknet_blockNumber", "[]"))); n != "0" {
		t.Fatalf("block number %s before any block", n)
	}
	created := mustResult(t, call(t, d, "devnet_createBlock", "[]"))
	if pendingCount(t, d) != 0 {
		t.Fatal("transactions still pending after devnet_createBlock")
	}
	if n := string(mustResult(t, call(t, d, "starknet_blockNumber", "[]"))); n != "1" {
		t.Fatalf("block number %s after one block", n)
	}
	var blk struct {
		Status string                       `json:"status"`
		Hash   string                       `json:"block_hash"`
		Number uint64                       `json:"block_number"`
		Txs    []map[string]json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(mustResult(t, call(t, d, "starknet_getBlockWithTxs", `[{"block_number":1}]`)), &blk); err != nil {
		t.Fatal(err)
	}
	if blk.Status != "ACCEPTED_ON_L2" || blk.Number != 1 || len(blk.Txs) != len(want) || !strings.Contains(string(created), blk.Hash) {
		t.Fatalf("block 1: %+v, createBlock answered %s", blk, created)
	}
	byHash := mustResult(t, call(t, d, "starknet_getBlockWithTxs", `{"block_id":{"block_hash":"`+blk.Hash+`"}}`))
	latest := mustResult(t, call(t, d, "starknet_getBlockWithTxs", `["latest"]`))
	if string(byHash) != string(latest) {
		t.Fatalf("by hash %s\nlatest %s", byHash, latest)
	}
	tx := mustResult(t, call(t, d, "starknet_getTransactionByHash", `["`+want[0]+`"]`))
	if !strings.Contains(string(tx), want[0]) {
		t.Fatalf("getTransactionByHash: %s", tx)
	}
}

// checkTxnSchema checks a listed transaction against docs/spec.md's pending
// transaction object (v1 carries sender_address where v0 has
// contract_address and entry_point_selector).
func checkTxnSchema(t *testing.T, tx map[string]json.RawMessage) {
	t.Helper()
	if unquote(t, tx["type"]) != "INVOKE" {
		t.Fatalf("type %s", tx["type"])
	}
	fields := []string{"transaction_hash", "max_fee", "version", "nonce"}
	switch unquote(t, tx["version"]) {
	case "0x0":
		fields = append(fields, "contract_address", "entry_point_selector")
	case "0x1":
		fields = append(fields, "sender_address")
	default:
		t.Fatalf("version %s", tx["version"])
	}
	for _, f := range fields {
		if _, err := starknet.ParseFelt(unquote(t, tx[f])); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	for _, f := range []string{"signature", "calldata"} {
		var arr []starknet.Felt
		if err := json.Unmarshal(tx[f], &arr); err != nil {
			t.Fatalf("%s: %v (%s)", f, err, tx[f])
		}
	}
}

func TestDevnetBadInput(t *testing.T) {
	over := `"` + pHex + `"`
	huge := `[` + strings.TrimSuffix(strings.Repeat(`"0x1",`, starknet.DefaultTxLimits.MaxCalldata+1), ",") + `]`
	tests := []struct {
		name, method, params string
		wantCode             int
		wantText             string
	}{
		{name: "pending with params", method: "starknet_pendingTransactions", params: `["0x1"]`, wantCode: -32602, wantText: "too many arguments, want at most 0"},
		{name: "pending with named params", method: "starknet_pendingTransactions", params: `{"x":1}`, wantCode: -32602, wantText: `unknown parameter "x"`},
		{name: "params a string", method: "starknet_pendingTransactions", params: `"x"`, wantCode: -32602, wantText: "params must be an array or an object"},
		{name: "no transaction", method: "starknet_addInvokeTransaction", params: `[]`, wantCode: -32602, wantText: "missing value for required argument 0 (invoke_transaction)"},
		{name: "felt over prime", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `"0x123"`, over, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.sender_address: felt is not below the field prime"},
		{name: "calldata over prime", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `["0x1","0x2"]}`, `["0x1",`+over+`]}`, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.calldata[1]"},
		{name: "missing field", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `"max_fee":"0x10",`, "", 1) + "]", wantCode: -32602, wantText: "invoke_transaction.max_fee: missing field"},
		{name: "wrong type", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `"nonce":"0x0"`, `"nonce":0`, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.nonce: felt must be a string"},
		{name: "signature object", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `["0x1","0x2"],"nonce"`, `{},"nonce"`, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.signature: must be an array of felts, got an object"},
		{name: "huge calldata", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `["0x1","0x2"]}`, huge+"}", 1) + "]", wantCode: -32602, wantText: "invoke_transaction.calldata: more than 4096 elements"},
		{name: "version 2", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV1, `"version":"0x1"`, `"version":"0x2"`, 1) + "]", wantCode: 61, wantText: "not supported"},
		{name: "v3 amount over u64", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV3, `"max_amount":"0x80"`, `"max_amount":"0x10000000000000000"`, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.resource_bounds.l1_data_gas.max_amount: must fit in 64 bits"},
		{name: "v3 bad DA mode", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV3, `"fee_data_availability_mode":"L1"`, `"fee_data_availability_mode":"l1"`, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.fee_data_availability_mode: must be \"L1\" or \"L2\""},
		{name: "v3 with max_fee", method: "starknet_addInvokeTransaction", params: "[" + strings.Replace(validV3, `"tip"`, `"max_fee":"0x1","tip"`, 1) + "]", wantCode: -32602, wantText: "invoke_transaction.max_fee: unknown field for an INVOKE v3 transaction"},
		{name: "two transactions", method: "starknet_addInvokeTransaction", params: "[" + validV1 + "," + validV1 + "]", wantCode: -32602, wantText: "too many arguments"},
		{name: "bad block id", method: "starknet_getBlockWithTxs", params: `["earliest"]`, wantCode: -32602, wantText: "block_id must be"},
		{name: "block number negative", method: "starknet_getBlockWithTxs", params: `[{"block_number":-1}]`, wantCode: -32602, wantText: "non-negative integer"},
		{name: "unknown block", method: "starknet_getBlockWithTxs", params: `[{"block_number":99}]`, wantCode: 24, wantText: "Block not found"},
		{name: "unknown tx", method: "starknet_getTransactionByHash", params: `["0x1"]`, wantCode: 29, wantText: "Transaction hash not found"},
		{name: "evm method", method: "eth_blockNumber", params: `[]`, wantCode: -32601, wantText: "the method eth_blockNumber does not exist/is not available"},
		{name: "rollup name is the gateway's", method: "rollup_pendingTransactions", params: `[]`, wantCode: -32601},
	}
	d := newTestDevnet(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, d, tt.method, tt.params)
			if r.Error == nil || r.Error.Code != tt.wantCode || !strings.Contains(r.Error.Message, tt.wantText) {
				t.Fatalf("answer %+v %s; want code %d containing %q", r.Error, r.Result, tt.wantCode, tt.wantText)
			}
			if n := pendingCount(t, d); n != 0 {
				t.Fatalf("%d transactions stored after an error", n)
			}
		})
	}
}

func TestDevnetEnvelope(t *testing.T) {
	d := newTestDevnet(t, Config{MaxBatch: 3})
	tests := []struct {
		name, body, want string
	}{
		{name: "not json", body: `{`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{name: "empty batch", body: `[]`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}`},
		{name: "batch too large", body: `[1,2,3,4]`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}`},
		{name: "no version", body: `{"id":1,"method":"starknet_chainId"}`, want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: jsonrpc must be \"2.0\""}}`},
		{name: "chain id", body: `{"jsonrpc":"2.0","id":"a","method":"starknet_chainId"}`, want: `{"jsonrpc":"2.0","id":"a","result":"0x534e5f4445564e4554"}`},
		{name: "spec version", body: `{"jsonrpc":"2.0","id":0,"method":"starknet_specVersion","params":[]}`, want: `{"jsonrpc":"2.0","id":0,"result":"0.10.0"}`},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"starknet_blockNumber"}, 5]`, want: `[{"jsonrpc":"2.0","id":1,"result":0},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := d.Do(context.Background(), []byte(tt.body))
			if err != nil || string(out) != tt.want {
				t.Fatalf("got %s (%v)\nwant %s", out, err, tt.want)
			}
		})
	}
}

func TestDevnetDuplicateAndByName(t *testing.T) {
	d := newTestDevnet(t, Config{})
	first := mustResult(t, call(t, d, "starknet_addInvokeTransaction", `{"invoke_transaction":`+validV1+`}`))
	r := call(t, d, "starknet_addInvokeTransaction", "["+validV1+"]")
	if r.Error == nil || r.Error.Code != starknet.CodeDuplicateTx {
		t.Fatalf("duplicate accepted: %s %+v", r.Result, r.Error)
	}
	mustResult(t, call(t, d, "devnet_createBlock", "{}"))
	if r := call(t, d, "starknet_addInvokeTransaction", "["+validV1+"]"); r.Error == nil || r.Error.Code != starknet.CodeDuplicateTx {
		t.Fatalf("a transaction already in a block was accepted again: %s %+v (first %s)", r.Result, r.Error, first)
	}
}

func TestDevnetPoolFull(t *testing.T) {
	d := newTestDevnet(t, Config{MaxPending: 2})
	for i := range 3 {
		tx := strings.Replace(validV1, `"nonce":"0x0"`, fmt.Sprintf(`"nonce":"0x%x"`, i), 1)
		r := call(t, d, "starknet_addInvokeTransaction", "["+tx+"]")
		if i < 2 && r.Error != nil {
			t.Fatalf("tx %d refused: %+v", i, r.Error)
		}
		if i == 2 && (r.Error == nil || r.Error.Code != -32005) {
			t.Fatalf("tx over the pool limit: %s %+v", r.Result, r.Error)
		}
	}
}

func TestDevnetBlockTime(t *testing.T) {
	d := newTestDevnet(t, Config{BlockTime: 20 * time.Millisecond})
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+validV1+"]"))
	testenv.WaitFor(t, 5*time.Second, "the transaction in a block after a 20ms block time", func() bool { return pendingCount(t, d) == 0 })
	if n := string(mustResult(t, call(t, d, "starknet_blockNumber", "[]"))); n == "0" {
		t.Fatal("no block was made")
	}
}

func TestDevnetKeepBlocks(t *testing.T) {
	d := newTestDevnet(t, Config{KeepBlocks: 2})
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+validV1+"]"))
	for range 3 {
		mustResult(t, call(t, d, "devnet_createBlock", "[]"))
	}
	for _, tt := range []struct {
		id   string
		code int
	}{{`{"block_number":0}`, starknet.CodeBlockNotFound}, {`{"block_number":1}`, starknet.CodeBlockNotFound}, {`{"block_number":2}`, 0}, {`{"block_number":3}`, 0}} {
		r := call(t, d, "starknet_getBlockWithTxs", "["+tt.id+"]")
		if (tt.code == 0) != (r.Error == nil) || (r.Error != nil && r.Error.Code != tt.code) {
			t.Fatalf("%s: %+v", tt.id, r.Error)
		}
	}
	// The forgotten block's transaction is forgotten too.
	if r := call(t, d, "starknet_getTransactionByHash", `["`+starknet.InvokeV1Hash(d.ChainID(), starknet.MustFelt("0x123"), []starknet.Felt{starknet.FeltFromUint64(1), starknet.FeltFromUint64(2)}, starknet.FeltFromUint64(16), starknet.FeltFromUint64(0)).String()+`"]`); r.Error == nil || r.Error.Code != starknet.CodeTxHashNotFound {
		t.Fatalf("%s %+v", r.Result, r.Error)
	}
}

// TestDevnetPendingBlock: the block being built lists the pool, in the
// shape of each version: 0.10's pre_confirmed block names its number, 0.8's
// pending block its parent.
func TestDevnetPendingBlock(t *testing.T) {
	d := newTestDevnet(t, Config{})
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+validV1+"]"))
	var genesis struct {
		Hash string `json:"block_hash"`
	}
	_ = json.Unmarshal(mustResult(t, call(t, d, "starknet_getBlockWithTxs", `["latest"]`)), &genesis)
	for _, tc := range []struct {
		name, tag  string
		callIn     func(t *testing.T, d *Devnet, method, params string) rpcResult
		wantParent string
		wantNumber *uint64
	}{
		{name: "0.10 pre_confirmed", tag: "pre_confirmed", callIn: call, wantNumber: new(uint64(1))},
		{name: "0.8 pending", tag: "pending", callIn: call08, wantParent: genesis.Hash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pb struct {
				Txs    []map[string]json.RawMessage `json:"transactions"`
				Parent string                       `json:"parent_hash"`
				Number *uint64                      `json:"block_number"`
				TS     uint64                       `json:"timestamp"`
			}
			if err := json.Unmarshal(mustResult(t, tc.callIn(t, d, "starknet_getBlockWithTxs", `["`+tc.tag+`"]`)), &pb); err != nil {
				t.Fatal(err)
			}
			if len(pb.Txs) != 1 || pb.Parent != tc.wantParent || (pb.Number == nil) != (tc.wantNumber == nil) || (pb.Number != nil && *pb.Number != *tc.wantNumber) || pb.TS == 0 {
				t.Fatalf("block being built %+v, genesis %s", pb, genesis.Hash)
			}
			checkTxnSchema(t, pb.Txs[0])
			// The other version's tag is refused.
			other := map[string]string{"pending": "pre_confirmed", "pre_confirmed": "pending"}[tc.tag]
			if r := tc.callIn(t, d, "starknet_getBlockWithTxs", `["`+other+`"]`); r.Error == nil || r.Error.Code != -32602 {
				t.Fatalf("tag %s: %s %+v", other, r.Result, r.Error)
			}
		})
	}
}

func FuzzDevnetDo(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"starknet_addInvokeTransaction","params":[` + validV1 + `]}`, `[]`, `{`, `[{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithTxs","params":[{"block_number":0}]}]`, `{"jsonrpc":"2.0","id":1,"method":"devnet_createBlock","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_addInvokeTransaction","params":[` + validV3 + `]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_estimateFee","params":[[` + validV3 + `],["SKIP_VALIDATE"],"pending"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getNonce","params":{"block_id":{"block_number":1},"contract_address":"0x1"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithReceipts","params":["latest"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithTxs","params":["pre_confirmed"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getClassAt","params":["l1_accepted","0x1"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getClass","params":{"block_id":{"block_hash":"0x1"},"class_hash":"0x2"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"devnet_getPredeployedAccounts","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{"contract_address":"0x1","entry_point_selector":"0x2","calldata":[]},"latest"]}`} {
		f.Add([]byte(s))
	}
	d, err := New(Config{MaxPending: 100, KeepBlocks: 4})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, do := range []func(context.Context, []byte) ([]byte, error){d.Do, d.Do08} {
			out, err := do(context.Background(), body)
			if err != nil || !json.Valid(out) {
				t.Fatalf("Do(%q) = %q, %v", body, out, err)
			}
		}
	})
}
