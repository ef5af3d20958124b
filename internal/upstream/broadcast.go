package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/jsonrpc"
)

// knownMessages are a node's ways of saying it already holds the
// transaction it was sent: it took it, earlier.
var knownMessages = []string{"already known", "known transaction", "alreadyknown", "already imported"}

// delivery is one member's outcome of a broadcast.
type delivery struct {
	m    *Member
	raw  []byte
	resp *jsonrpc.Response
	err  error
	took bool // the member holds the transaction now
}

// broadcast sends a signed transaction (a call of a write kind) to every
// member in service at once, so that it is not stranded on one node when
// the nodes do not gossip to one another. The first member that takes it
// answers the call; the others finish in the background, within the
// attempt timeout, whatever the caller does meanwhile: they are counted
// in the caller's hold (WithHold) until the last one ends, and a member
// gets the write only while it has fewer than PoolConfig.MaxPendingWrites
// pending (else it is counted dropped; when every member has that many,
// the pool is unavailable for the write). A member that
// already holds the transaction ("already known", or "nonce too low" while
// it has this very transaction) took it: when such a member is the first,
// the call is answered with the transaction's hash (for the methods that
// answer it). When no member took it, the answer is the first refusal (a
// JSON-RPC error such as "insufficient funds"), or unavailable when no
// member answered.
func (p *Pool) broadcast(ctx context.Context, c Call) ([]byte, *jsonrpc.Response, string, error) {
	targets, err := p.broadcastTargets()
	if err != nil {
		return nil, nil, "", err
	}
	// The caller's body is its own again once it is answered (a pooled
	// buffer): deliveries that finish later and resends get a copy.
	c.Body = bytes.Clone(c.Body)
	missed := p.noteBroadcast(c.Body, targets) // resend.go: members out now get it when back
	k := kindOf(c.Rule)
	hash, haveHash := txHash(c.Params)
	out := make(chan delivery, len(targets)) // buffered: senders never wait for a caller gone
	bg := context.WithoutCancel(ctx)
	budget := time.Now().Add(p.cfg.RetryBudget)
	// running counts the deliveries and the caller: the last to end gives
	// back the hold the caller took when it answered before them.
	var (
		running atomic.Int64
		release func()
	)
	running.Store(int64(len(targets)) + 1)
	end := func() {
		if running.Add(-1) == 0 && release != nil {
			release()
		}
	}
	defer func() {
		if running.Load() > 1 {
			release = holdOf(ctx)()
		}
		end()
	}()
	for _, m := range targets {
		go func() {
			defer end()
			defer m.writes.done()
			raw, resp, err := p.try(bg, budget, m, c.Body, hedgeRole{})
			s := delivery{m: m, raw: raw, resp: resp, err: err}
			p.delivered(missed, m, err != nil) // resend.go
			if err == nil {
				s.took = resp.Err == nil || p.holds(bg, m, resp.Err, hash, haveHash)
			}
			out <- s
		}()
	}
	return p.firstTaken(ctx, out, len(targets), k, hash, haveHash)
}

// broadcastTargets are the members a signed transaction goes to: those in
// service (every member when none is: out of service is not certainly
// dead), each within its bound of pending writes (broadcast_bound.go).
func (p *Pool) broadcastTargets() ([]*Member, error) {
	var candidates, targets []*Member
	for _, m := range p.members {
		if m.InService() {
			candidates = append(candidates, m)
		}
	}
	if len(candidates) == 0 {
		candidates = p.members
	}
	limit := p.cfg.maxPendingWrites()
	for _, m := range candidates {
		if m.writes.take(limit) {
			targets = append(targets, m)
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("pool %s: %w (every member has %d writes pending)", p.id, ErrPoolUnavailable, limit)
	}
	return targets, nil
}

// firstTaken reads n deliveries of a broadcast from out and answers with the
// first member that took the transaction (its answer, or the hash for a
// method that answers it), else the first refusal, else the last error.
func (p *Pool) firstTaken(ctx context.Context, out <-chan delivery, n int, k kind, hash common.Hash, haveHash bool) ([]byte, *jsonrpc.Response, string, error) {
	var (
		refusal *delivery
		lastErr error = ErrPoolUnavailable
	)
	for range n {
		var s delivery
		select {
		case s = <-out:
		case <-ctx.Done():
			return nil, nil, "", fmt.Errorf("pool %s: %w", p.id, ctx.Err())
		}
		switch {
		case s.took && s.resp.Err == nil:
			return s.raw, s.resp, s.m.Name(), nil
		case s.took && k.AnswersHash && haveHash:
			resp := &jsonrpc.Response{Result: json.RawMessage(`"` + hash.Hex() + `"`)}
			return jsonrpc.AppendResponse(nil, json.RawMessage("1"), resp), resp, s.m.Name(), nil
		case s.err == nil && refusal == nil:
			refusal = &s
		case s.err != nil:
			lastErr = s.err
		}
	}
	if refusal != nil {
		return refusal.raw, refusal.resp, refusal.m.Name(), nil
	}
	return nil, nil, "", fmt.Errorf("pool %s: %w (last: %w)", p.id, ErrPoolUnavailable, lastErr)
}

// holds reports whether m's refusal e of the transaction hash means that m
// has it already.
func (p *Pool) holds(ctx context.Context, m *Member, e *jsonrpc.Error, hash common.Hash, haveHash bool) bool {
	msg := strings.ToLower(e.Message)
	for _, known := range knownMessages {
		if strings.Contains(msg, known) {
			return true
		}
	}
	if !haveHash || !strings.Contains(msg, "nonce too low") {
		return false
	}
	// The nonce is used: by this transaction (sent before, now mined or
	// pending), or by another one.
	ctx, cancel := context.WithTimeout(ctx, p.cfg.AttemptTimeout)
	defer cancel()
	raw, err := m.Upstream.Do(ctx, p.req.txByHash(hash))
	if err != nil {
		return false
	}
	_, resp, err := jsonrpc.DecodeResponse(raw)
	return err == nil && resp.Err == nil && len(resp.Result) > 0 && string(resp.Result) != "null"
}

// txHash is the hash of the signed transaction a write's params carry
// first (hex of its bytes).
func txHash(params json.RawMessage) (common.Hash, bool) {
	var args []json.RawMessage
	if err := json.Unmarshal(params, &args); err != nil || len(args) == 0 {
		return common.Hash{}, false
	}
	var tx hexutil.Bytes
	if err := json.Unmarshal(args[0], &tx); err != nil || len(tx) == 0 {
		return common.Hash{}, false
	}
	return crypto.Keccak256Hash(tx), true
}
