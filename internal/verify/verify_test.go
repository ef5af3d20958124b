package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// setField returns obj with its field key set to value (raw JSON).
func setField(t testing.TB, obj json.RawMessage, key, value string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatalf("set %s: %v", key, err)
	}
	m[key] = json.RawMessage(value)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// setIn returns obj with field key's element i given fn's change.
func setIn(t testing.TB, obj json.RawMessage, key string, i int, fn func(json.RawMessage) json.RawMessage) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(m[key], &list); err != nil {
		t.Fatal(err)
	}
	list[i] = fn(list[i])
	b, _ := json.Marshal(list)
	m[key] = b
	out, _ := json.Marshal(m)
	return out
}

const otherHash = `"0x00000000000000000000000000000000000000000000000000000000000000aa"`

// TestAnswers: the node's real answers pass every check; each corruption
// of one fails the check named.
func TestAnswers(t *testing.T) {
	c := newChain(t)
	all := Defaults()
	all.TxHash, all.TxSender, all.BlockSenders = true, true, true
	byNumber := fmt.Sprintf(`["0x%x",true]`, c.number)
	byHash := fmt.Sprintf(`["%s",true]`, c.block)
	block := c.call(t, "eth_getBlockByNumber", byNumber)
	prev := c.call(t, "eth_getBlockByNumber", fmt.Sprintf(`["0x%x",true]`, c.number-1))
	tx := c.call(t, "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer))
	rcpt := c.call(t, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger))
	blockRcpts := c.call(t, "eth_getBlockReceipts", fmt.Sprintf(`["%s"]`, c.block))
	logsParams := fmt.Sprintf(`[{"blockHash":"%s"}]`, c.block)
	logs := c.call(t, "eth_getLogs", logsParams)
	// The logger by its block and index, and asked at another index (the
	// two transactions share a block or not, as the node sealed them: a
	// fixed index 1 was null once, and a null answer names no index).
	inBlock := fmt.Sprintf(`["%s","0x%x"]`, c.block, c.index)
	atAnother := fmt.Sprintf(`["%s","0x%x"]`, c.block, c.index^1)
	txInBlock := c.call(t, "eth_getTransactionByBlockHashAndIndex", inBlock)
	if string(txInBlock) == "null" {
		t.Fatalf("no transaction at %s", inBlock)
	}
	header := c.call(t, "eth_getHeaderByHash", fmt.Sprintf(`["%s"]`, c.block))
	if len(logs) < 10 {
		t.Fatalf("the block has no logs: %s", logs)
	}
	firstTx := func(f func(json.RawMessage) json.RawMessage) json.RawMessage {
		return setIn(t, block, "transactions", 0, f)
	}
	firstLog := func(obj json.RawMessage, f func(json.RawMessage) json.RawMessage) json.RawMessage {
		return setIn(t, obj, "logs", 0, f)
	}
	tests := []struct {
		name, method, params string
		result               json.RawMessage
		want                 string // the check that fails; "" passes
	}{
		{"block by number", "eth_getBlockByNumber", byNumber, block, ""},
		{"block by hash", "eth_getBlockByHash", byHash, block, ""},
		{"block without transactions", "eth_getBlockByHash", fmt.Sprintf(`["%s",false]`, c.block), c.call(t, "eth_getBlockByHash", fmt.Sprintf(`["%s",false]`, c.block)), ""},
		{"header", "eth_getHeaderByHash", fmt.Sprintf(`["%s"]`, c.block), header, ""},
		{"transaction", "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer), tx, ""},
		{"transaction in block", "eth_getTransactionByBlockHashAndIndex", inBlock, txInBlock, ""},
		{"receipt", "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger), rcpt, ""},
		{"block receipts", "eth_getBlockReceipts", fmt.Sprintf(`["%s"]`, c.block), blockRcpts, ""},
		{"logs", "eth_getLogs", logsParams, logs, ""},
		{"null", "eth_getBlockByHash", byHash, json.RawMessage("null"), ""},
		{"pending block by tag", "eth_getBlockByNumber", `["pending",true]`, setField(t, block, "hash", "null"), ""},
		{"a block without a hash", "eth_getBlockByNumber", `["latest",false]`, setField(t, block, "hash", "null"), ""},

		{"another block than asked by number", "eth_getBlockByNumber", byNumber, prev, CheckIdentity},
		{"another block than asked by hash", "eth_getBlockByHash", byHash, prev, CheckIdentity},
		{"block hash", "eth_getBlockByNumber", byNumber, setField(t, block, "hash", otherHash), CheckBlockHash},
		{"block hash by hash", "eth_getBlockByHash", fmt.Sprintf(`[%s,true]`, otherHash), setField(t, block, "hash", otherHash), CheckBlockHash},
		{"block hash by tag", "eth_getBlockByNumber", `["latest",true]`, setField(t, block, "hash", otherHash), CheckBlockHash},
		{"parent hash", "eth_getBlockByHash", byHash, setField(t, block, "parentHash", otherHash), CheckBlockHash},
		{"header state root", "eth_getHeaderByHash", fmt.Sprintf(`["%s"]`, c.block), setField(t, header, "stateRoot", otherHash), CheckBlockHash},
		{"transactions root", "eth_getBlockByHash", byHash, setField(t, block, "transactionsRoot", otherHash), CheckBlockHash},
		{"a block missing a transaction", "eth_getBlockByHash", byHash, dropLastTx(t, block), CheckTransactionsRoot},
		{"a block's transaction value", "eth_getBlockByHash", byHash, firstTx(func(tx json.RawMessage) json.RawMessage { return setField(t, tx, "value", `"0x8"`) }), CheckTxHash},
		{"a block's transaction hash", "eth_getBlockByHash", byHash, firstTx(func(tx json.RawMessage) json.RawMessage { return setField(t, tx, "hash", otherHash) }), CheckTxHash},
		{"a block's transaction from", "eth_getBlockByHash", byHash, firstTx(func(tx json.RawMessage) json.RawMessage {
			return setField(t, tx, "from", `"0x000000000000000000000000000000000000beef"`)
		}), CheckBlockSenders},
		{"a block's transaction index", "eth_getBlockByHash", byHash, firstTx(func(tx json.RawMessage) json.RawMessage { return setField(t, tx, "transactionIndex", `"0x5"`) }), CheckIdentity},
		{"transaction value", "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer), setField(t, tx, "value", `"0x8"`), CheckTxHash},
		{"transaction nonce", "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer), setField(t, tx, "nonce", `"0x9"`), CheckTxHash},
		{"transaction from", "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.transfer), setField(t, tx, "from", `"0x000000000000000000000000000000000000beef"`), CheckTxSender},
		{"another transaction than asked", "eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, c.logger), tx, CheckIdentity},
		{"transaction at another index", "eth_getTransactionByBlockHashAndIndex", atAnother, txInBlock, CheckIdentity},
		{"another receipt than asked", "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.transfer), rcpt, CheckIdentity},
		{"a receipt's log of another block", "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, c.logger), firstLog(rcpt, func(l json.RawMessage) json.RawMessage { return setField(t, l, "blockHash", otherHash) }), CheckIdentity},
		{"block receipts of another block", "eth_getBlockReceipts", fmt.Sprintf(`["0x%x"]`, c.number-1), blockRcpts, CheckIdentity},
		{"logs of another block", "eth_getLogs", fmt.Sprintf(`[{"blockHash":%s}]`, otherHash), logs, CheckIdentity},
		{"logs out of range", "eth_getLogs", fmt.Sprintf(`[{"fromBlock":"0x%x","toBlock":"0x%x"}]`, c.number+1, c.number+5), logs, CheckIdentity},
		{"not JSON", "eth_getBlockByHash", byHash, json.RawMessage(`{"hash":`), CheckIdentity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Answer(all, rule(t, tt.method), json.RawMessage(tt.params), tt.result)
			var f *Failure
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("an honest answer failed: %v", err)
			case tt.want != "" && !errors.As(err, &f):
				t.Fatalf("passed (%v), want check %s to fail", err, tt.want)
			case tt.want != "" && f.Check != tt.want:
				t.Fatalf("failed %v, want check %s", err, tt.want)
			}
		})
	}
}

// TestChecksOff: a check turned off lets its corruption through.
func TestChecksOff(t *testing.T) {
	c := newChain(t)
	params := fmt.Sprintf(`["%s",true]`, c.block)
	block := c.call(t, "eth_getBlockByHash", params)
	bad := setField(t, block, "parentHash", otherHash)
	if err := Answer(Checks{Identity: true}, rule(t, "eth_getBlockByHash"), json.RawMessage(params), bad); err != nil {
		t.Fatalf("block_hash off: %v", err)
	}
	if err := Answer(Defaults(), rule(t, "eth_getBlockByHash"), json.RawMessage(params), bad); err == nil {
		t.Fatal("block_hash on: passed")
	}
}

// dropLastTx returns block without its last transaction.
func dropLastTx(t testing.TB, block json.RawMessage) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(block, &m); err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(m["transactions"], &list); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(list[:len(list)-1])
	m["transactions"] = b
	out, _ := json.Marshal(m)
	return out
}
