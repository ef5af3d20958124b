package subs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The feed's reads of the blocks that join the canonical chain (chain.go):
// a block's header for newHeads, its logs for logs, through the pool's
// Send. A block that joined the chain is owed to every subscriber: its read
// is tried again (from 50 ms, doubling up to MaxBackoff) until it works,
// for as long as the block is still on the canonical chain — one that left
// it meanwhile is owed nothing (the follower reports it removed, and no
// removed: true goes for logs never sent) — and the feed still follows.
// So a member that fails, a pool with no member in service for a while, or
// a slow answer on a busy machine delays the stream, in order, and never
// leaves a gap in it.

var (
	errBlockNotFound = errors.New("block not found")
	errLeftChain     = errors.New("the block left the canonical chain")
	errNotFollowing  = errors.New("the feed stopped following the chain")
)

// warnAfterAttempts is how many failed tries of one read pass before a
// WARN says the stream waits for it (each try is through the pool's own
// retries on other members).
const warnAfterAttempts = 5

// read makes a read of block b until it works, b leaves the canonical
// chain, the Follow gen ends or the hub closes (then the error says which).
func (f *chainFeed) read(gen uint64, b upstream.CanonBlock, what string, fn func(ctx context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(f.base, f.hub.opts.CallTimeout)
		raw, err := fn(ctx)
		cancel()
		if err == nil {
			return raw, nil
		}
		if attempt == warnAfterAttempts {
			slog.Warn("subscription: a block's "+what+" not read yet; the stream waits for it", "block", b.Number, "hash", b.Hash.Hex(), "attempts", attempt, "err", err)
		}
		select {
		case <-f.hub.quit:
			return nil, fmt.Errorf("%w: %w", errHubClosed, err)
		case <-time.After(delay):
		}
		switch {
		case !f.live(gen):
			return nil, fmt.Errorf("%w: %w", errNotFollowing, err)
		case !f.canonical(b):
			return nil, fmt.Errorf("%w: %w", errLeftChain, err)
		}
		delay = min(delay*2, f.hub.opts.MaxBackoff)
	}
}

// canonical reports whether b is still on the pool's canonical chain: the
// chain's block at its height, or (a height the window no longer holds)
// not above the chain's head.
func (f *chainFeed) canonical(b upstream.CanonBlock) bool {
	if h, ok := f.hub.pool.Canonical(b.Number); ok {
		return h == b.Hash
	}
	head, ok := f.hub.pool.Canon().Head()
	return !ok || b.Number <= head.Number
}

// fetchBlock is the follower's read of a block the chain's window skipped.
func (f *chainFeed) fetchBlock(ctx context.Context, hash common.Hash) (upstream.CanonBlock, error) {
	raw, err := f.readBlock(ctx, hash)
	if err != nil {
		return upstream.CanonBlock{}, err
	}
	var b struct {
		Number     *hexutil.Uint64 `json:"number"`
		Hash       *common.Hash    `json:"hash"`
		ParentHash *common.Hash    `json:"parentHash"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return upstream.CanonBlock{}, fmt.Errorf("block %s: %w", hash.Hex(), err)
	}
	if b.Number == nil || b.Hash == nil || b.ParentHash == nil {
		return upstream.CanonBlock{}, fmt.Errorf("block %s %.100s: no number, hash or parent hash", hash.Hex(), raw)
	}
	return upstream.CanonBlock{Number: uint64(*b.Number), Hash: *b.Hash, Parent: *b.ParentHash, Block: raw}, nil
}

// readBlock reads the block with hash through the pool.
func (f *chainFeed) readBlock(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	params := fmt.Appendf(nil, `["%s",false]`, hash.Hex())
	return f.send(ctx, blockByHashRule, params)
}

// readLogs reads the logs of the block with hash through the pool.
func (f *chainFeed) readLogs(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	params := fmt.Appendf(nil, `[{"blockHash":"%s"}]`, hash.Hex())
	return f.send(ctx, logsRule, params)
}

// send makes one read through the pool's Send; a null answer (no member
// has the block) is an error.
func (f *chainFeed) send(ctx context.Context, rule *methods.Rule, params []byte) (json.RawMessage, error) {
	body := jsonrpc.AppendRequest(nil, 1, rule.Name, json.RawMessage(params))
	resp, _, err := f.hub.pool.Send(ctx, upstream.Call{Body: body, Rule: rule, Params: params, Idempotent: true})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", rule.Name, err)
	case resp.Err != nil:
		return nil, fmt.Errorf("%s: %w", rule.Name, resp.Err)
	case len(resp.Result) == 0 || string(resp.Result) == "null":
		return nil, fmt.Errorf("%s %s: %w", rule.Name, params, errBlockNotFound)
	}
	return resp.Result, nil
}
