package upstream

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/jsonrpc"
)

// TestJudgeAnswerReadsEveryBlockNamed: every log of an eth_getLogs answer
// and every receipt of an eth_getBlockReceipts answer is judged by its own
// block, not only the first; the worst place is the answer's.
func TestJudgeAnswerReadsEveryBlockNamed(t *testing.T) {
	p := NewPool("judge", PoolConfig{HeadBlockMethod: "eth_getBlockByNumber"}, MemberConfig{Upstream: Func{ID: "m"}})
	in := func(int) bool { return true }
	for _, b := range chainTo(10) {
		p.canon.observe(0, b, nil, in)
	}
	entry := func(b headBlock) string {
		return fmt.Sprintf(`{"blockNumber":"0x%x","blockHash":"%s","logIndex":"0x0"}`, b.Number, b.Hash.Hex())
	}
	list := func(bs ...headBlock) json.RawMessage {
		var out []string
		for _, b := range bs {
			out = append(out, entry(b))
		}
		return json.RawMessage("[" + strings.Join(out, ",") + "]")
	}
	for _, tc := range []struct {
		name   string
		method string
		result json.RawMessage
		place  answerPlace
		n      uint64
	}{
		{"logs all on the chain", "eth_getLogs", list(blk(8, 0, 0), blk(8, 0, 0), blk(9, 0, 0), blk(10, 0, 0)), placeOn, 8},
		{"the last log off the chain", "eth_getLogs", list(blk(8, 0, 0), blk(9, 0, 0), blk(10, 1, 0)), placeOff, 10},
		{"a log in the middle off the chain", "eth_getLogs", list(blk(7, 0, 0), blk(8, 2, 0), blk(9, 0, 0)), placeOff, 8},
		{"a log above the head", "eth_getLogs", list(blk(9, 0, 0), blk(11, 0, 0)), placeAbove, 11},
		{"off beats above", "eth_getLogs", list(blk(11, 0, 0), blk(9, 1, 0)), placeOff, 9},
		{"no logs", "eth_getLogs", json.RawMessage(`[]`), placeNone, 0},
		{"receipts of a block off the chain", "eth_getBlockReceipts", list(blk(10, 0, 0), blk(10, 1, 0)), placeOff, 10},
		{"receipts on the chain", "eth_getBlockReceipts", list(blk(10, 0, 0), blk(10, 0, 0)), placeOn, 10},
		{"a receipt above the head", "eth_getTransactionReceipt", json.RawMessage(entry(blk(12, 0, 0))), placeAbove, 12},
		{"a receipt off the chain", "eth_getTransactionReceipt", json.RawMessage(entry(blk(9, 3, 0))), placeOff, 9},
		{"a receipt below the window", "eth_getTransactionReceipt", json.RawMessage(entry(blk(0, 3, 0))), placeNone, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kindOf(ruleOf(tc.method))
			n, place := p.placeAnswer(k, json.RawMessage(`[{}]`), &jsonrpc.Response{Result: tc.result})
			if place != tc.place || place != placeNone && n != tc.n {
				t.Errorf("place %d at %d, want %d at %d", place, n, tc.place, tc.n)
			}
		})
	}
}
