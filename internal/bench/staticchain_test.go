package bench

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/verify"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestStaticChainPassesVerification: the static upstream's answers are a
// real chain's: every check a gateway runs on answers passes (signed
// transactions, real header hashes, what was asked), so that a gateway
// in front of it keeps its checks on.
func TestStaticChainPassesVerification(t *testing.T) {
	all := verify.Defaults()
	all.TxSender, all.BlockSenders = true, true
	table := methods.NewTable(methods.FamilyEVM)
	hashes := StaticHashes()
	d := staticData()
	calls := []struct{ method, params string }{
		{"eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, hashes[0])},
		{"eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, hashes[StaticTxCount-1])},
		{"eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, hashes[3])},
		{"eth_getTransactionByBlockHashAndIndex", fmt.Sprintf(`["%s","0x5"]`, d.headHash)},
		{"eth_getTransactionByBlockNumberAndIndex", fmt.Sprintf(`["0x%x","0x5"]`, StaticHead)},
		{"eth_getBlockByNumber", `["latest",true]`},
		{"eth_getBlockByNumber", `["finalized",false]`},
		{"eth_getBlockByNumber", fmt.Sprintf(`["0x%x",false]`, StaticHead)},
		{"eth_getBlockByHash", fmt.Sprintf(`["%s",true]`, d.finalHash)},
	}
	for _, c := range calls {
		t.Run(c.method+c.params, func(t *testing.T) {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, c.method, c.params)
			_, resp, err := jsonrpc.DecodeResponse(AnswerStatic(nil, []byte(body)))
			if err != nil || resp.Err != nil || string(resp.Result) == "null" {
				t.Fatalf("answer: %v %+v %s", err, resp.Err, resp.Result)
			}
			rule, rerr := table.Lookup(c.method)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if err := verify.Answer(all, rule, json.RawMessage(c.params), resp.Result); err != nil {
				t.Fatalf("the static answer fails verification: %v", err)
			}
		})
	}
}
