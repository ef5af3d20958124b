package faultproxy

import (
	"bytes"
	"encoding/json"
	"slices"
)

// The ways an answer is corrupted.
const (
	WayHash             = "hash"             // a block's hash
	WayParentHash       = "parentHash"       // a block's parent hash
	WayTransactionsRoot = "transactionsRoot" // a block's transactions root
	WayTxField          = "txField"          // a transaction's value (alone, or a full block's first)
	WayTxNonce          = "txNonce"          // a transaction's nonce (alone)
	WayTxSender         = "txSender"         // a transaction's sender (alone)
	WayReceiptStatus    = "receiptStatus"    // a receipt's status
	WayLogData          = "logData"          // a log's data (eth_getLogs, or a receipt's first log)
	WayLogBlockHash     = "logBlockHash"     // a log's block hash (eth_getLogs, or a receipt's first log)
	WayAnother          = "another"          // the method's previous answer: another block or transaction than asked
)

// AllWays are every way.
var AllWays = []string{WayHash, WayParentHash, WayTransactionsRoot, WayTxField, WayTxNonce, WayTxSender,
	WayReceiptStatus, WayLogData, WayLogBlockHash, WayAnother}

// byMethod are the ways that apply to each method's answer.
var byMethod = map[string][]string{
	"eth_getBlockByNumber":      {WayHash, WayParentHash, WayTransactionsRoot, WayTxField, WayAnother},
	"eth_getBlockByHash":        {WayHash, WayParentHash, WayTransactionsRoot, WayTxField, WayAnother},
	"eth_getTransactionByHash":  {WayTxField, WayTxNonce, WayTxSender, WayAnother},
	"eth_getTransactionReceipt": {WayReceiptStatus, WayLogData, WayLogBlockHash, WayAnother},
	"eth_getLogs":               {WayLogData, WayLogBlockHash},
}

// waysFor are the ways among ways that apply to method.
func waysFor(method string, ways []string) []string {
	var out []string
	for _, w := range byMethod[method] {
		if slices.Contains(ways, w) {
			out = append(out, w)
		}
	}
	return out
}

const otherWord = `"0x00000000000000000000000000000000000000000000000000000000000000aa"`

// Corrupt is result corrupted in one way (nil: this answer has nothing to
// corrupt that way); prev is the method's previous answer, for WayAnother.
func Corrupt(result json.RawMessage, way string, prev json.RawMessage) json.RawMessage {
	if way == WayAnother {
		if prev == nil || bytes.Equal(prev, result) {
			return nil
		}
		return prev
	}
	var v any
	if json.Unmarshal(result, &v) != nil {
		return nil
	}
	ok := false
	switch way {
	case WayHash, WayParentHash, WayTransactionsRoot:
		ok = set(v, way, otherWord)
	case WayTxField:
		if !set(first(v, "transactions"), "value", `"0x1234"`) {
			obj, _ := v.(map[string]any)
			_, isBlock := obj["transactions"]
			ok = !isBlock && set(v, "value", `"0x1234"`)
		} else {
			ok = true
		}
	case WayTxNonce:
		ok = set(v, "nonce", `"0x77"`)
	case WayTxSender:
		ok = set(v, "from", `"0x000000000000000000000000000000000000beef"`)
	case WayReceiptStatus:
		obj, _ := v.(map[string]any)
		if s, has := obj["status"].(string); has {
			ok = set(v, "status", map[bool]string{true: `"0x0"`, false: `"0x1"`}[s == "0x1"])
		}
	case WayLogData:
		ok = set(firstLog(v), "data", `"0x1234"`)
	case WayLogBlockHash:
		ok = set(firstLog(v), "blockHash", otherWord)
	}
	if !ok {
		return nil
	}
	out, _ := json.Marshal(v)
	return out
}

// set sets m's key (m an object) to value.
func set(m any, key, value string) bool {
	obj, ok := m.(map[string]any)
	if !ok {
		return false
	}
	obj[key] = json.RawMessage(value)
	return true
}

// firstLog is the first log of v: an eth_getLogs answer or a receipt
// (nil: none).
func firstLog(v any) any {
	if list, isList := v.([]any); isList && len(list) > 0 {
		return list[0]
	}
	return first(v, "logs")
}

// first is the first element of m's list key (nil: none).
func first(m any, key string) any {
	obj, _ := m.(map[string]any)
	list, _ := obj[key].([]any)
	if len(list) == 0 {
		return nil
	}
	return list[0]
}
