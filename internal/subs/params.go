package subs

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The stream kinds nodegate serves.
const (
	KindNewHeads   = "newHeads"
	KindLogs       = "logs"
	KindPendingTxs = "newPendingTransactions"
)

// request is a checked eth_subscribe: its stream key and the params to
// send upstream.
type request struct {
	kind   string
	key    string
	params json.RawMessage
	// filterSize is a logs filter's addresses and topic values (0 for
	// other kinds, or every log).
	filterSize int
	// filter is a logs subscription's filter, as parsed (logfilter.go).
	filter filters.FilterCriteria
}

// paramsOf renders eth_subscribe params.
func paramsOf(args ...any) json.RawMessage {
	raw, _ := json.Marshal(args) // strings, booleans and raw JSON checked by the caller
	return raw
}

// parseSubscribe checks eth_subscribe params the way go-ethereum does and
// returns the stream they name. Equal filters spelled differently (address
// case, a single address or a one-element list) share one stream.
func parseSubscribe(params json.RawMessage) (request, *jsonrpc.Error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(params, &raw); err != nil {
		return request{}, jsonrpc.ErrInvalidParams("invalid argument: params must be an array")
	}
	if len(raw) == 0 {
		return request{}, jsonrpc.ErrInvalidParams("subscription name missing")
	}
	var kind string
	if err := json.Unmarshal(raw[0], &kind); err != nil {
		return request{}, jsonrpc.ErrInvalidParams("invalid subscription name: want a string")
	}
	rest := raw[1:]
	switch kind {
	case KindNewHeads:
		if len(rest) > 0 {
			return request{}, jsonrpc.ErrInvalidParams("too many arguments, want at most 1")
		}
		return request{kind: kind, key: kind, params: paramsOf(kind)}, nil
	case KindLogs:
		return parseLogs(rest)
	case KindPendingTxs:
		return parsePending(rest)
	}
	return request{}, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, fmt.Sprintf("no %q subscription in eth namespace", kind))
}

func parseLogs(rest []json.RawMessage) (request, *jsonrpc.Error) {
	if len(rest) > 1 {
		return request{}, jsonrpc.ErrInvalidParams("too many arguments, want at most 2")
	}
	filter := json.RawMessage(`{}`)
	if len(rest) == 1 && !bytes.Equal(bytes.TrimSpace(rest[0]), []byte("null")) {
		filter = rest[0]
	}
	var crit filters.FilterCriteria
	if err := json.Unmarshal(filter, &crit); err != nil {
		return request{}, jsonrpc.ErrInvalidParams("invalid argument 1: " + err.Error())
	}
	canon, err := json.Marshal(crit)
	if err != nil {
		return request{}, jsonrpc.ErrInvalidParams("invalid argument 1: " + err.Error())
	}
	size := len(crit.Addresses)
	for _, position := range crit.Topics {
		size += len(position)
	}
	return request{kind: KindLogs, key: KindLogs + "|" + string(canon), params: paramsOf(KindLogs, filter), filterSize: size, filter: crit}, nil
}

func parsePending(rest []json.RawMessage) (request, *jsonrpc.Error) {
	if len(rest) > 1 {
		return request{}, jsonrpc.ErrInvalidParams("too many arguments, want at most 2")
	}
	full := false
	if len(rest) == 1 && !bytes.Equal(bytes.TrimSpace(rest[0]), []byte("null")) {
		if err := json.Unmarshal(rest[0], &full); err != nil {
			return request{}, jsonrpc.ErrInvalidParams("invalid argument 1: want a boolean (full transactions)")
		}
	}
	if full {
		return request{kind: KindPendingTxs, key: KindPendingTxs + "|full", params: paramsOf(KindPendingTxs, true)}, nil
	}
	return request{kind: KindPendingTxs, key: KindPendingTxs, params: paramsOf(KindPendingTxs)}, nil
}

// parseUnsubscribe reads the id of eth_unsubscribe.
func parseUnsubscribe(params json.RawMessage) (string, *jsonrpc.Error) {
	var ids []string
	if err := json.Unmarshal(params, &ids); err != nil || len(ids) != 1 {
		return "", jsonrpc.ErrInvalidParams("invalid argument 0: want one subscription id")
	}
	return ids[0], nil
}
