package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Heads with their hashes: the poll of a member's head block
// (PoolConfig.HeadBlockMethod) and its newHeads pushes, read as blocks
// for the canonical chain (canon.go).

// pollHead asks m for its head: the head block when the family gives a
// block by number (its hash known), else — or when m's answer is not a
// block with a hash — the head's number alone (HeadMethod). A node fault
// is returned as it is.
func (p *Pool) pollHead(ctx context.Context, m *Member) (headBlock, error) {
	if p.cfg.HeadBlockMethod != "" {
		asked, since := m.reports.Load()+1, nowNano()
		out, err := m.Upstream.Do(ctx, p.req.headBlock)
		if err != nil {
			return headBlock{}, err
		}
		if _, resp, err := jsonrpc.DecodeResponse(out); err == nil && resp.Err == nil {
			if b, err := parseHeadBlock(resp.Result); err == nil {
				b.asked, b.since = asked, since
				return b, nil
			}
		}
	}
	n, err := p.headOf(ctx, m)
	return headBlock{Number: n}, err
}

// parseHeadBlock reads a block or header's number, hash and parent hash.
func parseHeadBlock(raw []byte) (headBlock, error) {
	var b struct {
		Number     *hexutil.Uint64 `json:"number"`
		Hash       *common.Hash    `json:"hash"`
		ParentHash *common.Hash    `json:"parentHash"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return headBlock{}, fmt.Errorf("head block %.100s: %w", raw, err)
	}
	if b.Number == nil || b.Hash == nil || b.ParentHash == nil {
		return headBlock{}, fmt.Errorf("head block %.100s: no number, hash or parent hash", raw)
	}
	return headBlock{Number: uint64(*b.Number), Hash: *b.Hash, Parent: *b.ParentHash}, nil
}

// blockSource is a HeadSource that also gives each head's hash.
type blockSource interface {
	SubscribeBlocks(ctx context.Context, fn func(headBlock)) error
}

// SubscribeBlocks follows the member's newHeads with each header's hash
// and parent hash (a header without them is skipped).
func (h newHeadsSource) SubscribeBlocks(ctx context.Context, fn func(headBlock)) error {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	sub, err := h.s.Subscribe(sctx, newHeadsParams)
	cancel()
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	h.subscribed()
	for {
		select {
		case raw := <-sub.C:
			if b, err := parseHeadBlock(raw); err == nil {
				fn(b)
			}
		case <-sub.Done():
			return sub.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
