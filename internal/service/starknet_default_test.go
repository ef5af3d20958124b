package service_test

import (
	"encoding/json"
	"github.com/nodegate/nodegate/internal/testenv"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStarknetDefaultSealsOnItsOwn: on the embedded default, nothing but a
// client is needed for a transaction to go from PRE_CONFIRMED (0.10) to ACCEPTED_ON_L2
// (the devnet seals a transaction 1 s after it arrives), the way
// starknet.js's waitForTransaction needs. The deadline is generous: the
// test is about the block being made unasked, not about its timing.
func TestStarknetDefaultSealsOnItsOwn(t *testing.T) {
	s := start(t, nil)
	url := s.NetworkURL("starknet") + "/v3/" + s.GeneratedKey
	rpc := func(method, params string) json.RawMessage {
		t.Helper()
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var a struct {
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal(raw, &a); err != nil || a.Error != nil {
			t.Fatalf("%s: %s", method, raw)
		}
		return a.Result
	}
	tx := `{"type":"INVOKE","version":"0x3","sender_address":"0x5","calldata":[],"signature":[],"nonce":"0x0",` +
		`"resource_bounds":{"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x1"},"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"},"l1_data_gas":{"max_amount":"0x80","max_price_per_unit":"0x3b9aca00"}},` +
		`"tip":"0x0","paymaster_data":[],"account_deployment_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"}`
	var added struct {
		Hash string `json:"transaction_hash"`
	}
	if err := json.Unmarshal(rpc("starknet_addInvokeTransaction", "["+tx+"]"), &added); err != nil || added.Hash == "" {
		t.Fatalf("add: %v", err)
	}
	testenv.WaitFor(t, 30*time.Second, "ACCEPTED_ON_L2 (the default devnet makes a block)", func() bool {
		status := string(rpc("starknet_getTransactionStatus", `["`+added.Hash+`"]`))
		if status != `{"finality_status":"PRE_CONFIRMED","execution_status":"SUCCEEDED"}` && status != `{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED"}` {
			t.Fatalf("status %s", status)
		}
		return status == `{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED"}`
	})
	if got := string(rpc("starknet_getNonce", `["latest","0x5"]`)); got != `"0x1"` {
		t.Fatalf("nonce after the block %s", got)
	}
}
