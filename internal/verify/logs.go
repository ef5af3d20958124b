package verify

import (
	"encoding/json"

	"github.com/nodegate/nodegate/jsonrpc"
)

// filter is what an eth_getLogs filter names: one block by hash, or a
// range whose numbered ends bound the logs' blocks.
type filter struct {
	block    ref
	from, to ref
}

// filterOf reads the filter at params[0].
func filterOf(params json.RawMessage) filter {
	var f filter
	_ = jsonrpc.Fields(jsonrpc.Element(params, 0), func(key, value []byte) bool {
		switch string(key) {
		case "blockHash":
			f.block = refOf(value)
		case "fromBlock":
			f.from = refOf(value)
		case "toBlock":
			f.to = refOf(value)
		}
		return true
	})
	return f
}

// logs checks the logs answered to filter f: each of the block it names,
// or within its numbered range.
func logs(c Checks, f filter, result []byte) error {
	if !c.Identity {
		return nil
	}
	var ls []logFields
	if err := json.Unmarshal(result, &ls); err != nil {
		return fail(CheckIdentity, "logs are not JSON logs: %v", err)
	}
	for i, l := range ls {
		if l.BlockHash == nil || l.BlockNumber == nil {
			continue // a pending log
		}
		n := uint64(*l.BlockNumber)
		switch {
		case f.block.byHash && *l.BlockHash != f.block.hash:
			return fail(CheckIdentity, "asked the logs of block %s, log %d is of block %s", f.block.hash, i, *l.BlockHash)
		case f.from.byNum && n < f.from.number:
			return fail(CheckIdentity, "asked logs from block %d, log %d is of block %d", f.from.number, i, n)
		case f.to.byNum && n > f.to.number:
			return fail(CheckIdentity, "asked logs to block %d, log %d is of block %d", f.to.number, i, n)
		}
	}
	return nil
}
