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
	WayReceiptStatus    = "receiptStatus"    // a receipt's status
	WayLogData          = "logData"          // a log's data (eth_getLogs, or a receipt's first log)
	WayAnother          = "another"          // the method's previous answer: another block or transaction than asked
)

// AllWays are every way.
var AllWays = []string{WayHash, WayParentHash, WayTransactionsRoot, WayTxField, WayReceiptStatus, WayLogData, WayAnother}

// byMethod are the ways that apply to each method's answer.
var byMethod = map[string][]string{
	"eth_getBlockByNumber":      {WayHash, WayParentHash, WayTransactionsRoot, WayTxField, WayAnother},
	"eth_getBlockByHash":        {WayHash, WayParentHash, WayTransactionsRoot, WayTxField, WayAnother},
	"eth_getTransactionByHash":  {WayTxField, WayAnother},
	"eth_getTransactionReceipt": {WayReceiptStatus, WayLogData, WayAnother},
	"eth_getLogs":               {WayLogData},
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
	case WayReceiptStatus:
		obj, _ := v.(map[string]any)
		if s, has := obj["status"].(string); has {
			ok = set(v, "status", map[bool]string{true: `"0x0"`, false: `"0x1"`}[s == "0x1"])
		}
	case WayLogData:
		if list, isList := v.([]any); isList && len(list) > 0 {
			ok = set(list[0], "data", `"0x1234"`)
		} else {
			ok = set(first(v, "logs"), "data", `"0x1234"`)
		}
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

// first is the first element of m's list key (nil: none).
func first(m any, key string) any {
	obj, _ := m.(map[string]any)
	list, _ := obj[key].([]any)
	if len(list) == 0 {
		return nil
	}
	return list[0]
}
