package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

func TestAnswerBlock(t *testing.T) {
	h := "0x" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name, method, result string
		n                    uint64
		ok                   bool
	}{
		{"a receipt", "eth_getTransactionReceipt", `{"blockHash":"` + h + `","blockNumber":"0x9"}`, 9, true},
		{"a block", "eth_getBlockByNumber", `{"number":"0x10","hash":"` + h + `","parentHash":"0x00"}`, 16, true},
		{"a pending block (no hash)", "eth_getBlockByNumber", `{"number":"0x10","hash":null}`, 0, false},
		{"a pending transaction", "eth_getTransactionByHash", `{"blockHash":null,"blockNumber":null}`, 0, false},
		{"a short hash", "eth_getTransactionReceipt", `{"blockHash":"0xab","blockNumber":"0x9"}`, 0, false},
		{"null", "eth_getTransactionReceipt", `null`, 0, false},
		{"a head number", "eth_blockNumber", `"0x10"`, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, got, ok := kindOf(ruleOf(tc.method)).answerBlock(json.RawMessage(tc.result))
			if ok != tc.ok || ok && (n != tc.n || got != common.HexToHash(h)) {
				t.Errorf("answerBlock = %d %x %v, want %d %v", n, got, ok, tc.n, tc.ok)
			}
		})
	}
}

// FuzzAnswerBlock: the one-pass reader agrees with encoding/json on the
// number and hash of a receipt-like answer.
func FuzzAnswerBlock(f *testing.F) {
	f.Add(`{"blockHash":"0x` + strings.Repeat("0f", 32) + `","blockNumber":"0x9"}`)
	f.Add(`{"blockHash":"0x` + strings.Repeat("G0", 32) + `","blockNumber":"0x9"}`)
	f.Add(`{"blockNumber":"0x1","blockHash":"0X` + strings.Repeat("Aa", 32) + `"}`)
	k := kindOf(ruleOf("eth_getTransactionReceipt"))
	f.Fuzz(func(t *testing.T, result string) {
		n, h, ok := k.answerBlock(json.RawMessage(result))
		if !ok {
			return
		}
		var std struct {
			BlockHash   *common.Hash    `json:"blockHash"`
			BlockNumber *hexutil.Uint64 `json:"blockNumber"`
		}
		if jsonrpc.Fields([]byte(result), func(_, _ []byte) bool { return true }) != nil {
			return // not an object the pool would read
		}
		if err := json.Unmarshal([]byte(result), &std); err != nil || std.BlockHash == nil || std.BlockNumber == nil {
			return // duplicate or escaped keys, read differently: the pool's reading is its own
		}
		if uint64(*std.BlockNumber) != n || *std.BlockHash != h {
			t.Errorf("%s: read %d %x, encoding/json %d %x", result, n, h, *std.BlockNumber, *std.BlockHash)
		}
	})
}
