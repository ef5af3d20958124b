package subs

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// logTracker remembers, on a logs stream, the block of the last log
// delivered, so that after a re-subscription (perhaps on a member that is
// behind) logs of blocks already delivered are not delivered again.
type logTracker struct {
	have bool
	last uint64
	// floor, while resumed: logs of blocks at or below it (not removed
	// ones: a reorg) are dropped.
	floor     uint64
	resumedAt bool
}

func (t *logTracker) resumed() {
	t.floor, t.resumedAt = t.last, t.have
}

type logID struct {
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	Removed     bool           `json:"removed"`
}

// deliverLog passes a log on unless, since a re-subscription, its block
// was already delivered.
func (st *stream) deliverLog(raw json.RawMessage) {
	var id logID
	if err := json.Unmarshal(raw, &id); err != nil {
		st.fanout(raw)
		return
	}
	t := &st.logs
	num := uint64(id.BlockNumber)
	if t.resumedAt && !id.Removed {
		if num <= t.floor {
			return
		}
		t.resumedAt = false
	}
	t.have, t.last = true, max(t.last, num)
	st.fanout(raw)
}
