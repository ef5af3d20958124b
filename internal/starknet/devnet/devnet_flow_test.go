package devnet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/starknet"
)

// v3For is validV3 from sender with nonce.
func v3For(sender, nonce string) string {
	s := strings.Replace(validV3, `"sender_address":"0x1"`, `"sender_address":"`+sender+`"`, 1)
	return strings.Replace(s, `"nonce":"0x0"`, `"nonce":"`+nonce+`"`, 1)
}

// TestDevnetNonces: each sender's nonce starts at 0, a transaction must
// carry the next one (52 otherwise, nothing stored), an accepted one
// advances the pending nonce at once and the latest-block nonce when it is
// sealed; older blocks keep the nonce they had.
func TestDevnetNonces(t *testing.T) {
	d := newTestDevnet(t, Config{})
	nonce := func(block, addr string) string {
		t.Helper()
		return string(mustResult(t, call(t, d, "starknet_getNonce", `{"block_id":`+block+`,"contract_address":"`+addr+`"}`)))
	}
	if got := nonce(`"pre_confirmed"`, "0xabc"); got != `"0x0"` {
		t.Fatalf("fresh account nonce %s", got)
	}
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+v3For("0xabc", "0x0")+"]"))
	for _, tc := range []struct{ name, nonce string }{{"replayed nonce", "0x0"}, {"skipped nonce", "0x2"}} {
		tx := strings.Replace(v3For("0xabc", tc.nonce), `"tip":"0x0"`, `"tip":"0x1"`, 1) // not the same transaction
		r := call(t, d, "starknet_addInvokeTransaction", "["+tx+"]")
		if r.Error == nil || r.Error.Code != CodeInvalidTxNonce || r.Error.Message != "Invalid transaction nonce" {
			t.Fatalf("%s: %s %+v", tc.name, r.Result, r.Error)
		}
	}
	if n := pendingCount(t, d); n != 1 {
		t.Fatalf("%d pending after refused nonces", n)
	}
	if got, latest := nonce(`"pre_confirmed"`, "0xabc"), nonce(`"latest"`, "0xabc"); got != `"0x1"` || latest != `"0x0"` {
		t.Fatalf("after one pending tx: pre_confirmed %s latest %s", got, latest)
	}
	if got := string(mustResult(t, call08(t, d, "starknet_getNonce", `["pending","0xabc"]`))); got != `"0x1"` {
		t.Fatalf("0.8 pending nonce %s", got)
	}
	if got := nonce(`"pre_confirmed"`, "0xdef"); got != `"0x0"` {
		t.Fatalf("another account's nonce moved: %s", got)
	}
	mustResult(t, call(t, d, "devnet_createBlock", "[]"))
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+v3For("0xabc", "0x1")+"]"))
	mustResult(t, call(t, d, "devnet_createBlock", "[]"))
	for _, tc := range []struct{ block, want string }{{`"latest"`, `"0x2"`}, {`{"block_number":2}`, `"0x2"`}, {`{"block_number":1}`, `"0x1"`}, {`{"block_number":0}`, `"0x0"`}} {
		if got := nonce(tc.block, "0xabc"); got != tc.want {
			t.Fatalf("nonce at %s = %s, want %s", tc.block, got, tc.want)
		}
	}
	if r := call(t, d, "starknet_getNonce", `["latest"]`); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("getNonce without an address: %+v", r.Error)
	}
	if r := call(t, d, "starknet_getNonce", `[{"block_number":9},"0x1"]`); r.Error == nil || r.Error.Code != starknet.CodeBlockNotFound {
		t.Fatalf("getNonce at an unknown block: %+v", r.Error)
	}
}

// TestDevnetStatusAndReceipt: until its block a transaction is RECEIVED
// without a receipt (0.8) or PRE_CONFIRMED with a receipt naming the number
// of the block being built (0.10); then ACCEPTED_ON_L2 with a receipt
// naming the block; the block reads back by hashes (with 0.10's counts)
// and with receipts.
func TestDevnetStatusAndReceipt(t *testing.T) {
	for _, tc := range []struct {
		name, tag, starknetVersion, pendingStatus string
		callIn                                    func(t *testing.T, d *Devnet, method, params string) rpcResult
		pendingReceipt                            bool
	}{
		{name: "0.10", tag: "pre_confirmed", starknetVersion: "0.14.0", pendingStatus: `{"finality_status":"PRE_CONFIRMED","execution_status":"SUCCEEDED"}`, callIn: call, pendingReceipt: true},
		{name: "0.8", tag: "pending", starknetVersion: "0.13.4", pendingStatus: `{"finality_status":"RECEIVED"}`, callIn: call08},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newTestDevnet(t, Config{})
			call := tc.callIn
			h := hashOf(t, string(mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+validV3+"]"))))
			if got := string(mustResult(t, call(t, d, "starknet_getTransactionStatus", `["`+h+`"]`))); got != tc.pendingStatus {
				t.Fatalf("pending status %s", got)
			}
			r := call(t, d, "starknet_getTransactionReceipt", `{"transaction_hash":"`+h+`"}`)
			switch {
			case tc.pendingReceipt && (r.Error != nil || !strings.Contains(string(r.Result), `"finality_status":"PRE_CONFIRMED","block_number":1,"messages_sent"`) || strings.Contains(string(r.Result), "block_hash")):
				t.Fatalf("receipt of a pre-confirmed tx: %s %+v", r.Result, r.Error)
			case !tc.pendingReceipt && (r.Error == nil || r.Error.Code != starknet.CodeTxHashNotFound):
				t.Fatalf("receipt of a pending tx: %s %+v", r.Result, r.Error)
			}
			pendingHashes := mustResult(t, call(t, d, "starknet_getBlockWithTxHashes", `["`+tc.tag+`"]`))
			if !strings.Contains(string(pendingHashes), `"transactions":["`+h+`"]`) || !strings.Contains(string(pendingHashes), `"starknet_version":"`+tc.starknetVersion+`"`) {
				t.Fatalf("pending block by hashes: %s", pendingHashes)
			}
			mustResult(t, call(t, d, "devnet_createBlock", "[]"))
			if got := string(mustResult(t, call(t, d, "starknet_getTransactionStatus", `["`+h+`"]`))); got != `{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED"}` {
				t.Fatalf("sealed status %s", got)
			}
			var blk struct {
				Hash   string   `json:"block_hash"`
				Number uint64   `json:"block_number"`
				Txs    []string `json:"transactions"`
				Price  struct {
					Fri string `json:"price_in_fri"`
				} `json:"l2_gas_price"`
				TxCount   *int    `json:"transaction_count"`
				DiffLen   *int    `json:"state_diff_length"`
				EventComm *string `json:"event_commitment"`
			}
			raw := mustResult(t, call(t, d, "starknet_getBlockWithTxHashes", `["latest"]`))
			if err := json.Unmarshal(raw, &blk); err != nil || blk.Number != 1 || len(blk.Txs) != 1 || blk.Txs[0] != h || blk.Price.Fri != "0x2540be400" {
				t.Fatalf("block by hashes %+v %v", blk, err)
			}
			if tc.pendingReceipt != (blk.TxCount != nil) || (blk.TxCount != nil && (*blk.TxCount != 1 || *blk.DiffLen != 1 || *blk.EventComm != "0x0")) {
				t.Fatalf("0.10 header fields in %s", raw)
			}
			var rcpt struct {
				Hash      string                        `json:"transaction_hash"`
				Exec      string                        `json:"execution_status"`
				Final     string                        `json:"finality_status"`
				BlockHash string                        `json:"block_hash"`
				BlockNum  uint64                        `json:"block_number"`
				Fee       struct{ Amount, Unit string } `json:"actual_fee"`
				Res       map[string]uint64             `json:"execution_resources"`
			}
			raw = mustResult(t, call(t, d, "starknet_getTransactionReceipt", `["`+h+`"]`))
			if err := json.Unmarshal(raw, &rcpt); err != nil {
				t.Fatal(err)
			}
			// 2 calldata + 2 signature felts: l2_gas 500000+4*10000 at 1e10 FRI, 128 l1 data gas at 1e9.
			wantFee := "0x" + bigHex(540000*10_000_000_000+128*1_000_000_000)
			if rcpt.Hash != h || rcpt.Exec != "SUCCEEDED" || rcpt.Final != "ACCEPTED_ON_L2" || rcpt.BlockHash != blk.Hash || rcpt.BlockNum != 1 ||
				rcpt.Fee.Unit != "FRI" || rcpt.Fee.Amount != wantFee || rcpt.Res["l2_gas"] != 540000 {
				t.Fatalf("receipt %s (want fee %s)", raw, wantFee)
			}
			withReceipts := string(mustResult(t, call(t, d, "starknet_getBlockWithReceipts", `[{"block_number":1}]`)))
			if !strings.Contains(withReceipts, `"transactions":[{"transaction":{"type":"INVOKE","transaction_hash":"`+h+`"`) || !strings.Contains(withReceipts, `"receipt":{"type":"INVOKE","transaction_hash":"`+h+`","actual_fee":{"amount":"`+wantFee+`","unit":"FRI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","messages_sent"`) {
				t.Fatalf("block with receipts %s", withReceipts)
			}
			if r := call(t, d, "starknet_getTransactionStatus", `["0x1"]`); r.Error == nil || r.Error.Code != starknet.CodeTxHashNotFound {
				t.Fatalf("unknown tx status %+v", r.Error)
			}
		})
	}
}

func bigHex(v uint64) string { return starknet.FeltFromUint64(v).String()[2:] }

// TestDevnetEstimateFee: a well-formed FEE_ESTIMATE per transaction from
// the fixed prices, query versions admitted; bad requests refused naming
// the field.
func TestDevnetEstimateFee(t *testing.T) {
	d := newTestDevnet(t, Config{})
	query := strings.Replace(strings.Replace(validV3, `"0x3"`, `"0x100000000000000000000000000000003"`, 1), `"signature":["0x1","0x2"]`, `"signature":[]`, 1)
	raw := mustResult(t, call(t, d, "starknet_estimateFee", `{"request":[`+query+`,`+validV1+`],"simulation_flags":["SKIP_VALIDATE"],"block_id":"pre_confirmed"}`))
	var est []map[string]string
	if err := json.Unmarshal(raw, &est); err != nil || len(est) != 2 {
		t.Fatalf("estimate %s: %v", raw, err)
	}
	want := map[string]string{"l1_gas_consumed": "0x0", "l1_gas_price": "0x5af3107a4000", "l2_gas_consumed": "0x7ef40", "l2_gas_price": "0x2540be400",
		"l1_data_gas_consumed": "0x80", "l1_data_gas_price": "0x3b9aca00", "overall_fee": "0x" + bigHex(520000*10_000_000_000+128*1_000_000_000), "unit": "FRI"}
	for k, v := range want {
		if est[0][k] != v {
			t.Fatalf("estimate[0].%s = %s, want %s (%s)", k, est[0][k], v, raw)
		}
	}
	if est[1]["unit"] != "WEI" {
		t.Fatalf("v1 estimate unit %s", est[1]["unit"])
	}
	for _, tc := range []struct{ name, params, wantText string }{
		{"bad field in a request", `[[` + validV1 + `,` + strings.Replace(validV3, `"tip":"0x0"`, `"tip":"0x10000000000000000"`, 1) + `],[],"latest"]`, "request[1].tip: must fit in 64 bits"},
		{"request not an array", `[` + validV3 + `,[],"latest"]`, "request: must be an array"},
		{"unknown flag", `[[],["SKIP_FEE_CHARGE"],"latest"]`, `unknown flag "SKIP_FEE_CHARGE"`},
		{"missing block", `[[],[]]`, "missing value for required argument 2 (block_id)"},
		{"bad block", `[[],[],"earliest"]`, "block_id must be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, d, "starknet_estimateFee", tc.params)
			if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, tc.wantText) {
				t.Fatalf("%+v, want -32602 containing %q", r.Error, tc.wantText)
			}
		})
	}
	if n := pendingCount(t, d); n != 0 {
		t.Fatalf("an estimate stored %d transactions", n)
	}
}

// TestDevnetCall: starknet_call is answered with Starknet's CONTRACT_ERROR
// saying the devnet runs no code, after its params are checked.
func TestDevnetCall(t *testing.T) {
	d := newTestDevnet(t, Config{})
	out, err := d.Do(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":{"request":{"contract_address":"0x1","entry_point_selector":"0x2","calldata":[]},"block_id":"latest"}}`))
	if err != nil || !strings.Contains(string(out), `"error":{"code":40,"message":"Contract error","data":{"revert_error":"this devnet executes no code`) {
		t.Fatalf("starknet_call: %s %v", out, err)
	}
	if r := call(t, d, "starknet_call", `[{"contract_address":"0x1","calldata":[]},"latest"]`); r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "request.entry_point_selector: missing field") {
		t.Fatalf("bad call: %+v", r.Error)
	}
}
