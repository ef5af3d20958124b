package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/faultproxy"
)

// TestReceiptsRoot: on a real chain, a receipt, a block's receipts and a
// block's logs as the node gives them pass against their block's header
// and receipts; a receipt's status or a log's data changed (the faultproxy's
// lies, which no other check sees) fails receipts_root, and so does a
// header of another block.
func TestReceiptsRoot(t *testing.T) {
	t.Parallel()
	c := newChain(t)
	receipt := c.call(t, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger))
	blockReceipts := c.call(t, "eth_getBlockReceipts", fmt.Sprintf(`["%s"]`, c.block))
	logs := c.call(t, "eth_getLogs", fmt.Sprintf(`[{"blockHash":"%s"}]`, c.block))
	header := c.call(t, "eth_getBlockByHash", fmt.Sprintf(`["%s",false]`, c.block))
	other := c.call(t, "eth_getBlockByNumber", `["0x0",false]`)
	flipStatus := func(r json.RawMessage) json.RawMessage {
		return faultproxy.Corrupt(r, faultproxy.WayReceiptStatus, nil)
	}
	logData := func(r json.RawMessage) json.RawMessage { return faultproxy.Corrupt(r, faultproxy.WayLogData, nil) }
	var list []json.RawMessage
	if err := json.Unmarshal(blockReceipts, &list); err != nil || len(list) == 0 {
		t.Fatalf("block receipts: %v %s", err, blockReceipts)
	}
	list[0] = flipStatus(list[0])
	badBlockReceipts, _ := json.Marshal(list)
	cases := []struct {
		name, method string
		result       json.RawMessage
		header       json.RawMessage
		wantFail     bool
	}{
		{"a receipt as given", "eth_getTransactionReceipt", receipt, header, false},
		{"a receipt's status flipped", "eth_getTransactionReceipt", flipStatus(receipt), header, true},
		{"a receipt's log data changed", "eth_getTransactionReceipt", logData(receipt), header, true},
		{"a block's receipts as given", "eth_getBlockReceipts", blockReceipts, header, false},
		{"a block's receipts, one status flipped", "eth_getBlockReceipts", badBlockReceipts, header, true},
		{"logs as given", "eth_getLogs", logs, header, false},
		{"a log's data changed", "eth_getLogs", logData(logs), header, true},
		{"the header of another block", "eth_getTransactionReceipt", receipt, other, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rule(t, tc.method)
			blocks := RootBlocks(r, tc.result)
			if len(blocks) != 1 || blocks[0] != c.block {
				t.Fatalf("blocks to fetch %v, want [%s]", blocks, c.block)
			}
			_, receiptsParams := RootFetch(r, c.block)
			var receipts json.RawMessage
			if receiptsParams != "" {
				receipts = blockReceipts
			}
			err := AgainstRoot(r, tc.result, c.block, tc.header, receipts)
			var f *Failure
			if failed := errors.As(err, &f) && f.Check == CheckReceiptsRoot; failed != tc.wantFail {
				t.Fatalf("failed %v (%v), want %v", failed, err, tc.wantFail)
			}
		})
	}
}

// TestRootBlocks: the blocks a receipts-root check fetches: none for a
// null or a method without receipts, one per distinct block of logs, none
// past MaxRootBlocks.
func TestRootBlocks(t *testing.T) {
	t.Parallel()
	h := func(i int) string { return common.BigToHash(big.NewInt(int64(i + 2))).Hex() }
	logsOf := func(n int) json.RawMessage {
		s := "["
		for i := range n {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(`{"blockHash":%q},{"blockHash":%q}`, h(i), h(i))
		}
		return json.RawMessage(s + "]")
	}
	cases := []struct {
		name, method string
		result       json.RawMessage
		want         int
	}{
		{"a null receipt", "eth_getTransactionReceipt", json.RawMessage("null"), 0},
		{"a block", "eth_getBlockByNumber", json.RawMessage(`{"hash":"0x01"}`), 0},
		{"logs of one block", "eth_getLogs", logsOf(1), 1},
		{"logs of MaxRootBlocks blocks", "eth_getLogs", logsOf(MaxRootBlocks), MaxRootBlocks},
		{"logs of more blocks", "eth_getLogs", logsOf(MaxRootBlocks + 1), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := RootBlocks(rule(t, tc.method), tc.result); len(got) != tc.want {
				t.Fatalf("%d blocks %v, want %d", len(got), got, tc.want)
			}
		})
	}
}
