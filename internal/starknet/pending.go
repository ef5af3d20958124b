package starknet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The method names of the pending pool: docs/spec.md's and Starknet's.
const (
	MethodRollupPending   = "rollup_pendingTransactions"
	MethodStarknetPending = "starknet_pendingTransactions"
)

// IsPendingMethod reports whether method is answered by Pending.
func IsPendingMethod(method string) bool {
	return method == MethodRollupPending || method == MethodStarknetPending
}

// PendingMode says how the pending pool is read from a node.
type PendingMode string

const (
	// PendingAuto asks the node's starknet_specVersion: up to 0.4 it
	// forwards, from 0.5 on it reads the pending block.
	PendingAuto PendingMode = "auto"
	// PendingForward forwards starknet_pendingTransactions (Starknet
	// JSON-RPC ≤ 0.4: Pathfinder, Juno and the embedded devnet).
	PendingForward PendingMode = "forward"
	// PendingFromBlock reads starknet_getBlockWithTxs with block id
	// "pending" (or "pre_confirmed" from 0.9 on), where the method is gone.
	PendingFromBlock PendingMode = "block"
)

// DevnetPendingMode is the mode for the embedded devnet: it speaks 0.8,
// where auto would read its pending block, but keeps
// starknet_pendingTransactions as an extension, the pool itself, so auto
// forwards to it. An explicit mode is kept.
func DevnetPendingMode(configured PendingMode) PendingMode {
	if configured == PendingAuto || configured == "" {
		return PendingForward
	}
	return configured
}

// ParsePendingMode reads a configured mode; empty is auto.
func ParsePendingMode(s string) (PendingMode, error) {
	switch m := PendingMode(s); m {
	case "":
		return PendingAuto, nil
	case PendingAuto, PendingForward, PendingFromBlock:
		return m, nil
	}
	return "", fmt.Errorf("pending mode %q: want auto, forward or block", s)
}

const (
	resolvedUnknown int32 = iota
	resolvedForward
	resolvedBlock
)

// Pending answers rollup_pendingTransactions and starknet_pendingTransactions
// from one Starknet node. rollup_pendingTransactions always answers docs/spec.md's
// pending transaction objects (see mapPendingTx); starknet_pendingTransactions
// answers the node's own transaction objects, passed through as raw bytes.
type Pending struct {
	up         upstream.Upstream
	configured PendingMode
	resolved   atomic.Int32
	// preConfirmed is set once the node is known to call its pending block
	// "pre_confirmed" (Starknet JSON-RPC 0.9 and later).
	preConfirmed atomic.Bool
	ids          atomic.Uint64
}

// NewPending makes a Pending for a node. With PendingAuto the mode is
// resolved by Detect, or on first use.
func NewPending(up upstream.Upstream, mode PendingMode) (*Pending, error) {
	if up == nil {
		return nil, errors.New("pending: no upstream")
	}
	if _, err := ParsePendingMode(string(mode)); err != nil {
		return nil, err
	}
	p := &Pending{up: up, configured: mode}
	switch mode {
	case PendingForward:
		p.resolved.Store(resolvedForward)
	case PendingFromBlock:
		p.resolved.Store(resolvedBlock)
	}
	return p, nil
}

// Mode is the mode in use; PendingAuto until it is resolved.
func (p *Pending) Mode() PendingMode {
	switch p.resolved.Load() {
	case resolvedForward:
		return PendingForward
	case resolvedBlock:
		return PendingFromBlock
	}
	return PendingAuto
}

// Detect resolves PendingAuto from the node's starknet_specVersion. It is
// meant for start-up; a failure leaves the mode unresolved, to be tried
// again on first use.
func (p *Pending) Detect(ctx context.Context) error {
	if p.resolved.Load() != resolvedUnknown {
		return nil
	}
	res, nodeErr, err := p.rpc(ctx, "starknet_specVersion", "[]")
	switch {
	case err != nil:
		return fmt.Errorf("starknet_specVersion: %w", err)
	case nodeErr != nil && nodeErr.Code == jsonrpc.CodeMethodNotFound:
		// Older than 0.3, where specVersion appeared: pendingTransactions exists.
		p.resolved.Store(resolvedForward)
		return nil
	case nodeErr != nil:
		return fmt.Errorf("starknet_specVersion: %w", nodeErr)
	}
	var v string
	if err := json.Unmarshal(res, &v); err != nil {
		return fmt.Errorf("starknet_specVersion answered %s, not a version string", Clip(string(res)))
	}
	major, minor, err := parseSpecVersion(v)
	if err != nil {
		return err
	}
	if major == 0 && minor <= 4 {
		p.resolved.Store(resolvedForward)
	} else {
		p.resolved.Store(resolvedBlock)
		p.preConfirmed.Store(major > 0 || minor >= 9)
	}
	slog.Info("starknet pending transactions", "upstream", p.up.Name(), "spec_version", v, "mode", p.Mode())
	return nil
}

// parseSpecVersion reads "major.minor[.patch][-suffix]".
func parseSpecVersion(v string) (major, minor int, err error) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("spec version %q is not major.minor[.patch]", Clip(v))
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.SplitN(parts[1], "-", 2)[0])
	if err1 != nil || err2 != nil || major < 0 || minor < 0 {
		return 0, 0, fmt.Errorf("spec version %q is not major.minor[.patch]", Clip(v))
	}
	return major, minor, nil
}

// Serve answers one pending-transactions call. Params must be empty: absent,
// null, [] or {}. A node's own error is passed through; a node that cannot
// be reached is -32603 upstream unavailable.
func (p *Pending) Serve(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	res, e, err := p.serve(ctx, method, params)
	if err != nil {
		slog.Warn("starknet pending transactions: upstream failed", "upstream", p.up.Name(), "err", err)
		return nil, jsonrpc.ErrUpstreamUnavailable()
	}
	return res, e
}

// serve returns a result, a JSON-RPC error for the client, or a transport
// error (the node could not answer).
func (p *Pending) serve(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *jsonrpc.Error, error) {
	if !IsPendingMethod(method) {
		return nil, jsonrpc.ErrMethodNotFound(method), nil
	}
	if _, e := BindParams(params, nil, 0); e != nil {
		return nil, e, nil
	}
	if p.resolved.Load() == resolvedUnknown {
		if err := p.Detect(ctx); err != nil && upstream.IsNodeFault(err) {
			return nil, nil, err
		}
	}
	if p.resolved.Load() != resolvedBlock {
		res, nodeErr, err := p.rpc(ctx, MethodStarknetPending, "[]")
		switch {
		case err != nil:
			return nil, nil, err
		case nodeErr == nil:
			if method == MethodStarknetPending {
				return res, nil, nil
			}
			return mapPendingList(res)
		case nodeErr.Code != jsonrpc.CodeMethodNotFound || p.configured == PendingForward:
			return nil, nodeErr, nil
		}
		// The node no longer has the method (spec ≥ 0.5 behind a proxy that
		// hid its version): read the pending block from now on.
		p.resolved.Store(resolvedBlock)
	}
	txs, nodeErr, err := p.pendingBlockTxs(ctx)
	if err != nil || nodeErr != nil {
		return nil, nodeErr, err
	}
	if method == MethodStarknetPending {
		return txs, nil, nil
	}
	return mapPendingList(txs)
}

// pendingBlockTxs reads the transactions of the node's pending block. A
// node that does not know the tag it was asked for (BLOCK_NOT_FOUND or
// invalid params) is asked once with the other tag, which is then kept.
func (p *Pending) pendingBlockTxs(ctx context.Context) (json.RawMessage, *jsonrpc.Error, error) {
	pre := p.preConfirmed.Load()
	res, nodeErr, err := p.rpc(ctx, "starknet_getBlockWithTxs", blockTagParams(pre))
	if err != nil {
		return nil, nil, err
	}
	if nodeErr != nil && (nodeErr.Code == CodeBlockNotFound || nodeErr.Code == jsonrpc.CodeInvalidParams) {
		res, nodeErr, err = p.rpc(ctx, "starknet_getBlockWithTxs", blockTagParams(!pre))
		if err != nil {
			return nil, nil, err
		}
		if nodeErr == nil {
			p.preConfirmed.Store(!pre)
		}
	}
	if nodeErr != nil {
		return nil, nodeErr, nil
	}
	ms, err := objectMembers(res)
	if err != nil {
		return nil, jsonrpc.ErrInternal("upstream returned a pending block that is not an object"), nil
	}
	txs := find(ms, "transactions")
	if len(txs) == 0 || txs[0] != '[' {
		return nil, jsonrpc.ErrInternal("upstream returned a pending block without a transactions array"), nil
	}
	return txs, nil, nil
}

func blockTagParams(preConfirmed bool) string {
	if preConfirmed {
		return `["pre_confirmed"]`
	}
	return `["pending"]`
}

// mapPendingList maps every transaction of a JSON array (mapPendingTx).
func mapPendingList(raw json.RawMessage) (json.RawMessage, *jsonrpc.Error, error) {
	out := make([]byte, 0, len(raw)+len(raw)/4)
	out = append(out, '[')
	var mapErr error
	i := 0
	err := jsonrpc.Elements(raw, func(elem []byte) bool {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = mapPendingTx(out, elem); err != nil {
			mapErr = fmt.Errorf("pending transaction %d: %w", i, err)
			return false
		}
		i++
		return true
	})
	if err != nil {
		mapErr = errors.New("pending transactions are not an array")
	}
	if mapErr != nil {
		return nil, jsonrpc.ErrInternal("upstream returned an invalid " + mapErr.Error()), nil
	}
	return append(out, ']'), nil, nil
}

// rpc calls the node with one request and returns its raw result, its
// error object, or a transport error.
func (p *Pending) rpc(ctx context.Context, method, params string) (json.RawMessage, *jsonrpc.Error, error) {
	body := jsonrpc.AppendRequest(make([]byte, 0, 128), p.ids.Add(1), method, json.RawMessage(params))
	out, err := p.up.Do(ctx, body)
	if err != nil {
		return nil, nil, err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return nil, nil, &upstream.Error{Upstream: p.up.Name(), Err: fmt.Errorf("%s: %w", method, err)}
	}
	if resp.Err != nil {
		return nil, resp.Err, nil
	}
	return resp.Result, nil, nil
}
