package subs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
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
	// resumedAt: the stream re-subscribed (perhaps on another member, which
	// may be behind or on its own fork) and has delivered nothing newer
	// than last since; heads at or below last are not delivered again.
	resumedAt bool
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
	if num > t.last {
		t.resumedAt = false
	}
	t.have, t.last = true, num
	t.recent[t.next] = headMark{num, hash}
	t.next = (t.next + 1) % recentHeads
}

func (t *headTracker) resumed() { t.resumedAt = t.have }

// begin starts a new stream at head, the pool's head when it subscribed:
// every later head is delivered, even when the stream moves (or its member
// skips some) before its first notification. Unknown (0): from the first.
func (t *headTracker) begin(head uint64) {
	if head > 0 && !t.have {
		t.have, t.last = true, head
	}
}

// stale reports a head the stream must not deliver: one already delivered,
// or, since a re-subscription, one at or below the last delivered number.
func (t *headTracker) stale(num uint64, hash common.Hash) bool {
	return t.seen(num, hash) || t.resumedAt && num <= t.last
}

type headID struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// deliverHead fills any gap before a head, drops a head already delivered,
// and passes the rest on. A lower number than the last from the same
// subscription is a reorg and is delivered as the node sent it.
func (st *stream) deliverHead(m *upstream.Member, raw json.RawMessage) {
	var id headID
	if err := json.Unmarshal(raw, &id); err != nil {
		st.fanout(raw) // not ours to judge: pass it on untouched
		return
	}
	num := uint64(id.Number)
	if st.heads.stale(num, id.Hash) {
		return
	}
	if st.heads.have && num > st.heads.last+1 {
		st.fill(m, st.heads.last+1, num-1)
	}
	st.heads.record(num, id.Hash)
	st.hub.pool.SawHead(m, num, id.Hash) // before any client sees it: later calls find a member that has it
	st.fanout(raw)
}

// fillToLatest fetches the heads m has beyond the last delivered one (the
// blocks produced while the stream had no subscription).
func (st *stream) fillToLatest(m *upstream.Member) {
	if !st.heads.have {
		return
	}
	var latest hexutil.Uint64 // newHeads is the EVM family's: its head method says how far m is
	if err := st.call(m, familykind.EVM.HeadMethod, `[]`, &latest); err != nil {
		slog.Warn("subscription: newHeads gap check failed", "upstream", m.Name(), "err", err)
		return
	}
	if uint64(latest) > st.heads.last {
		st.fill(m, st.heads.last+1, uint64(latest))
	}
}

// fill delivers heads from..to (inclusive), read from m by number, at most
// MaxGapFill of them (the most recent ones).
func (st *stream) fill(m *upstream.Member, from, to uint64) {
	if n := uint64(st.hub.opts.MaxGapFill); to-from+1 > n {
		slog.Warn("subscription: newHeads gap larger than the fill limit; older heads skipped", "from", from, "to", to, "limit", n)
		from = to - n + 1
	}
	for num := from; num <= to; num++ {
		raw, hash, err := st.fetchHeader(m, num)
		if err != nil {
			slog.Warn("subscription: newHeads gap fill failed", "upstream", m.Name(), "block", num, "err", err)
			return
		}
		if raw == nil {
			return // the node does not have it (yet)
		}
		if st.heads.stale(num, hash) {
			continue
		}
		st.heads.record(num, hash)
		st.hub.pool.SawHead(m, num, hash)
		st.fanout(raw)
	}
}

// fetchHeader reads block num from m and renders its header as newHeads
// does (go-ethereum's header JSON), or nil when the block does not exist.
func (st *stream) fetchHeader(m *upstream.Member, num uint64) (json.RawMessage, common.Hash, error) {
	var block json.RawMessage
	if err := st.call(m, "eth_getBlockByNumber", fmt.Sprintf(`["%s",false]`, hexutil.Uint64(num)), &block); err != nil {
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

// call makes one call on m (over the connection its calls and its
// subscription share) and decodes the result into out.
func (st *stream) call(m *upstream.Member, method, params string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), st.hub.opts.CallTimeout)
	defer cancel()
	raw, err := m.Upstream.Do(ctx, jsonrpc.AppendRequest(nil, 1, method, json.RawMessage(params)))
	if err != nil {
		return err
	}
	_, resp, err := jsonrpc.DecodeResponse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", method, err)
	case resp.Err != nil:
		return fmt.Errorf("%s: %w", method, resp.Err)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
