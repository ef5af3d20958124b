package verify

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkChecks is what each check costs on one answer of the dev
// chain, one check at a time and the defaults together (allocations are
// the figure to read on a loaded machine; ns are indicative).
func BenchmarkChecks(b *testing.B) {
	c := newChain(b)
	block := c.call(b, "eth_getBlockByHash", fmt.Sprintf(`["%s",true]`, c.block))
	hashes := c.call(b, "eth_getBlockByHash", fmt.Sprintf(`["%s",false]`, c.block))
	tx := c.call(b, "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer))
	rcpt := c.call(b, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger))
	logs := c.call(b, "eth_getLogs", fmt.Sprintf(`[{"blockHash":"%s"}]`, c.block))
	answers := []struct {
		name, method, params string
		result               json.RawMessage
	}{
		{"block-full", "eth_getBlockByHash", fmt.Sprintf(`["%s",true]`, c.block), block},
		{"block-hashes", "eth_getBlockByHash", fmt.Sprintf(`["%s",false]`, c.block), hashes},
		{"tx", "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer), tx},
		{"receipt", "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger), rcpt},
		{"logs", "eth_getLogs", fmt.Sprintf(`[{"blockHash":"%s"}]`, c.block), logs},
	}
	checks := []struct {
		name string
		c    Checks
	}{
		{"identity", Checks{Identity: true}},
		{"block_hash", Checks{BlockHash: true}},
		{"transactions_root", Checks{TransactionsRoot: true}},
		{"tx_hash", Checks{TxHash: true}},
		{"tx_sender", Checks{TxSender: true}},
		{"block_senders", Checks{BlockSenders: true}},
		{"defaults", Defaults()},
	}
	for _, a := range answers {
		r := rule(b, a.method)
		for _, ck := range checks {
			b.Run(a.name+"/"+ck.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := Answer(ck.c, r, json.RawMessage(a.params), a.result); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
