package verify

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestDefaultsReadALoneTransactionByScanning: with the default checks a
// transaction answered alone is judged by its identity, read by scanning
// the answer: it is not decoded whole (go-ethereum's transaction JSON
// decoding costs about 40 allocations and more CPU than the rest of a
// proxied call). The block check TransactionsRoot, on by default, must
// not make it so.
func TestDefaultsReadALoneTransactionByScanning(t *testing.T) {
	c := newChain(t)
	params := json.RawMessage(fmt.Sprintf(`["%s"]`, c.transfer))
	tx := c.call(t, "eth_getTransactionByHash", string(params))
	r := rule(t, "eth_getTransactionByHash")
	if err := Answer(Defaults(), r, params, tx); err != nil {
		t.Fatalf("the node's own answer: %v", err)
	}
	allocs := testing.AllocsPerRun(100, func() { _ = Answer(Defaults(), r, params, tx) })
	if allocs > 10 {
		t.Errorf("defaults on a lone transaction: %.0f allocations, want at most 10 (it was decoded whole)", allocs)
	}
}
