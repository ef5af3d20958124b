package subs

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// recentHeads is how many delivered heads are remembered to drop duplicates
// (a head seen both by the gap fill and by the new subscription).
const recentHeads = 64

type headMark struct {
	num  uint64
	hash common.Hash
}

// headTracker remembers the last heads delivered on a newHeads stream.
type headTracker struct {
	have   bool
	last   uint64
	recent [recentHeads]headMark
	next   int
}

func (t *headTracker) seen(num uint64, hash common.Hash) bool {
	for _, m := range t.recent {
		if m.num == num && m.hash == hash && hash != (common.Hash{}) {
			return true
		}
	}
	return false
}

func (t *headTracker) record(num uint64, hash common.Hash) {
	t.have, t.last = true, num
	t.recent[t.next] = headMark{num, hash}
	t.next = (t.next + 1) % recentHeads
}

type headID struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// deliverHead fills any gap before a head, drops a head already delivered,
// and passes the rest on. A lower number than the last is a reorg and is
// delivered as the node sent it.
func (st *stream) deliverHead(c *rpc.Client, raw json.RawMessage) {
	var id headID
	if err := json.Unmarshal(raw, &id); err != nil {
		st.fanout(raw) // not ours to judge: pass it on untouched
		return
	}
	num := uint64(id.Number)
	if st.heads.seen(num, id.Hash) {
		return
	}
	if st.heads.have && num > st.heads.last+1 {
		st.fill(c, st.heads.last+1, num-1)
	}
	st.heads.record(num, id.Hash)
	st.fanout(raw)
}

// fillToLatest fetches the heads produced while the subscription was down.
func (st *stream) fillToLatest(c *rpc.Client) {
	if !st.heads.have {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), st.hub.opts.DialTimeout)
	defer cancel()
	var latest hexutil.Uint64
	if err := c.CallContext(ctx, &latest, "eth_blockNumber"); err != nil {
		slog.Warn("subscription: newHeads gap check failed", "err", err)
		return
	}
	if uint64(latest) > st.heads.last {
		st.fill(c, st.heads.last+1, uint64(latest))
	}
}

// fill delivers heads from..to (inclusive), fetched by number, at most
// MaxGapFill of them (the most recent ones).
func (st *stream) fill(c *rpc.Client, from, to uint64) {
	if n := uint64(st.hub.opts.MaxGapFill); to-from+1 > n {
		slog.Warn("subscription: newHeads gap larger than the fill limit; older heads skipped", "from", from, "to", to, "limit", n)
		from = to - n + 1
	}
	for num := from; num <= to; num++ {
		raw, hash, err := fetchHeader(c, num)
		if err != nil {
			slog.Warn("subscription: newHeads gap fill failed", "block", num, "err", err)
			return
		}
		if raw == nil {
			return // the node does not have it (yet)
		}
		if st.heads.seen(num, hash) {
			continue
		}
		st.heads.record(num, hash)
		st.fanout(raw)
	}
}

// fetchHeader reads block num and renders its header as newHeads does
// (go-ethereum's header JSON), or nil when the block does not exist.
func fetchHeader(c *rpc.Client, num uint64) (json.RawMessage, common.Hash, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var block json.RawMessage
	if err := c.CallContext(ctx, &block, "eth_getBlockByNumber", hexutil.Uint64(num), false); err != nil {
		return nil, common.Hash{}, err
	}
	if len(block) == 0 || string(block) == "null" {
		return nil, common.Hash{}, nil
	}
	var h types.Header
	if err := json.Unmarshal(block, &h); err != nil {
		return nil, common.Hash{}, err
	}
	out, err := json.Marshal(&h)
	if err != nil {
		return nil, common.Hash{}, err
	}
	return out, h.Hash(), nil
}
