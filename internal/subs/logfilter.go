package subs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/nodegate/nodegate/jsonrpc"
)

// A logs subscription made from the canonical chain's blocks (chain.go)
// is judged here as go-ethereum judges one: its filter is checked when it
// is made, and each log of a block is matched against it in process.

// The block numbers of go-ethereum's tags, as a parsed filter holds them.
const (
	tagEarliest = -5
	tagLatest   = -2
	tagPending  = -1
)

// logFilter is a logs subscription's filter, checked.
type logFilter struct {
	from, to  int64 // a block number, or tagLatest: no bound
	addresses []common.Address
	topics    [][]common.Hash
}

// checkLogFilter checks a logs subscription's block range as go-ethereum's
// eth_subscribe("logs") does, with its answers (its topic bound is
// parseLogs', when the filter is read).
func checkLogFilter(crit filters.FilterCriteria) (logFilter, *jsonrpc.Error) {
	from, to := blockOf(crit.FromBlock), blockOf(crit.ToBlock)
	if from == tagPending || to == tagPending {
		return logFilter{}, jsonrpc.ErrInvalidParams("pending logs are not supported")
	}
	if from == tagEarliest {
		from = 0
	}
	if to == tagEarliest {
		to = 0
	}
	valid := from == tagLatest && to == tagLatest || from >= 0 && to >= 0 && to >= from || from >= 0 && to == tagLatest
	if !valid {
		return logFilter{}, jsonrpc.ErrInvalidParams("invalid block range params")
	}
	return logFilter{from: from, to: to, addresses: crit.Addresses, topics: crit.Topics}, nil
}

func blockOf(n *big.Int) int64 {
	if n == nil {
		return tagLatest
	}
	return n.Int64()
}

// chainLog is one log of a canonical block: its JSON as the node gave it
// and what a filter matches.
type chainLog struct {
	raw     json.RawMessage
	number  uint64
	address common.Address
	topics  []common.Hash
}

// matches reports whether l passes the filter (go-ethereum's rule: a bound
// block range, one of the addresses, each topic position empty or holding
// the log's topic).
func (f *logFilter) matches(l *chainLog) bool {
	if f.from >= 0 && uint64(f.from) > l.number || f.to >= 0 && uint64(f.to) < l.number {
		return false
	}
	if len(f.addresses) > 0 && !slices.Contains(f.addresses, l.address) {
		return false
	}
	if len(f.topics) > len(l.topics) {
		return false
	}
	for i, want := range f.topics {
		if len(want) > 0 && !slices.Contains(want, l.topics[i]) {
			return false
		}
	}
	return true
}

// parseBlockLogs reads eth_getLogs' answer for one block.
func parseBlockLogs(result json.RawMessage) ([]chainLog, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(result, &raws); err != nil {
		return nil, fmt.Errorf("logs %.100s: %w", result, err)
	}
	out := make([]chainLog, 0, len(raws))
	for _, raw := range raws {
		var l struct {
			Address     common.Address `json:"address"`
			Topics      []common.Hash  `json:"topics"`
			BlockNumber hexutil.Uint64 `json:"blockNumber"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("log %.100s: %w", raw, err)
		}
		out = append(out, chainLog{raw: raw, number: uint64(l.BlockNumber), address: l.Address, topics: l.Topics})
	}
	return out, nil
}

var (
	notRemoved = []byte(`"removed":false`)
	isRemoved  = []byte(`"removed":true`)
)

// removedLog is l's JSON with removed: true, as a node sends a log whose
// block left the chain.
func removedLog(raw json.RawMessage) (json.RawMessage, error) {
	if bytes.Contains(raw, notRemoved) {
		return bytes.Replace(raw, notRemoved, isRemoved, 1), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("log %.100s: %w", raw, err)
	}
	fields["removed"] = json.RawMessage("true")
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("log %.100s: %w", raw, err)
	}
	return out, nil
}
