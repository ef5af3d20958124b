package devnet

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Hashing is the devnet's one costly work, and a client chooses how much
// of it a write costs (thousands of felts a transaction, hundreds of
// transactions a request). So a write's hashing is bounded before it is
// hashed, three ways, and a write refused by any of them answers -32005
// without being hashed:
//
//   - per request: the writes of one body (Do, Handler) hash at most
//     Config.MaxRequestHashUnits together;
//   - per account (admission.Account, carried by the call's context:
//     admission.AccountOf; over Handler, the client's address; a write
//     without one, the process's own, has no share): each
//     account hashes at most Config.HashUnitsPerSecond on average, with a
//     burst of MaxRequestHashUnits, so that no account's writes take the
//     CPU that another's need;
//   - per process: at most hashSlots writes hash at once (half the CPUs,
//     at least one), so that hashing never takes every CPU; a write waits
//     for a slot within its call's deadline.
//
// Costs are in hash units (hashCost): a felt a Poseidon hash (v3) takes is
// one, a felt a Pedersen hash (v0, v1) takes is pedersenWeight.

const (
	// DefaultMaxRequestHashUnits bounds one request's hashing: a v1 of
	// 4,096 calldata felts (about 25,000 units) fits, as do two v3 of
	// 12,288 felts; about 1 CPU-second on a loaded two-core machine.
	DefaultMaxRequestHashUnits = 32_768
	// DefaultHashUnitsPerSecond is each account's average hashing rate,
	// about a quarter of a CPU.
	DefaultHashUnitsPerSecond = 8_192
	// pedersenWeight is what a felt hashed with Pedersen costs in Poseidon
	// felts: a v1 of 4,096 felts hashes in about 0.7 s, a v3 of 12,288 in
	// about 0.35 s (docs/starknet.md).
	pedersenWeight = 6
	// hashFixedFelts is what a hash takes besides the transaction's
	// arrays (prefix, version, sender, fee fields, chain id, nonce and the
	// closing counts).
	hashFixedFelts = 16
	// maxShareAccounts bounds the accounts whose shares are kept; past it
	// the ones whose buckets are full again are forgotten first.
	maxShareAccounts = 100_000
)

// hashCost is what hashing tx costs, in hash units.
func hashCost(tx *starknet.Invoke) int64 {
	if tx.Version == 3 {
		return int64(len(tx.Calldata) + len(tx.V3.PaymasterData) + len(tx.V3.AccountDeploymentData) + hashFixedFelts)
	}
	return pedersenWeight * int64(len(tx.Calldata)+hashFixedFelts)
}

// request is what one body's writes share: its context (the caller's
// account, the deadline) and what is left of its hashing bound.
type request struct {
	ctx      context.Context
	account  string
	hashLeft int64
}

// hashShares is each account's bucket of hash units, refilled at rate a
// second up to burst, and the process's hashing slots.
type hashShares struct {
	rate, burst int64
	slots       chan struct{}

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	units float64
	at    time.Time
}

func newHashShares(rate, burst int64) *hashShares {
	return &hashShares{rate: rate, burst: burst, slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)), buckets: make(map[string]*bucket)}
}

// take charges account cost units at now; false (nothing charged) when
// its bucket has not that many. The account "" (a write without a caller:
// the process's own, or a library's direct use) has no share.
func (h *hashShares) take(account string, cost int64, now time.Time) bool {
	if account == "" {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.buckets[account]
	if !ok {
		if len(h.buckets) >= maxShareAccounts {
			h.forgetFullLocked(now)
		}
		b = &bucket{units: float64(h.burst), at: now}
		h.buckets[account] = b
	}
	b.units = min(float64(h.burst), b.units+now.Sub(b.at).Seconds()*float64(h.rate))
	b.at = now
	if b.units < float64(cost) {
		return false
	}
	b.units -= float64(cost)
	return true
}

// giveBack returns cost units taken from account's bucket.
func (h *hashShares) giveBack(account string, cost int64) {
	if account == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if b, ok := h.buckets[account]; ok {
		b.units = min(float64(h.burst), b.units+float64(cost))
	}
}

// forgetFullLocked drops the buckets that are full again (their accounts
// lose nothing); if none is, the whole map (a flood of new accounts).
func (h *hashShares) forgetFullLocked(now time.Time) {
	for a, b := range h.buckets {
		if b.units+now.Sub(b.at).Seconds()*float64(h.rate) >= float64(h.burst) {
			delete(h.buckets, a)
		}
	}
	if len(h.buckets) >= maxShareAccounts {
		clear(h.buckets)
	}
}

// slot waits for a hashing slot within ctx; the release, or nil when ctx
// ended first.
func (h *hashShares) slot(ctx context.Context) (release func()) {
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }
	case <-ctx.Done():
		return nil
	}
}

// hashTurn charges tx's hashing to r and its account and takes a hashing
// slot; the slot's release, or the refusal. Nothing is charged when tx is
// refused.
func (d *Devnet) hashTurn(r *request, tx *starknet.Invoke) (release func(), refused *jsonrpc.Error) {
	cost := hashCost(tx)
	if cost > r.hashLeft {
		return nil, jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
			"devnet: this request's writes would hash more than %d units (this transaction needs %d, %d are left); send fewer or smaller transactions per request",
			d.cfg.MaxRequestHashUnits, cost, r.hashLeft))
	}
	if !d.shares.take(r.account, cost, time.Now()) {
		return nil, jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
			"devnet: this account's writes used their share of hashing (%d units a second); this transaction needs %d, retry later",
			d.cfg.HashUnitsPerSecond, cost))
	}
	release = d.shares.slot(r.ctx)
	if release == nil {
		d.shares.giveBack(r.account, cost)
		return nil, jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "devnet: no hashing slot came free before the call's deadline")
	}
	r.hashLeft -= cost
	return release, nil
}

// HashWork is what the devnet has hashed since it started: transactions
// and hash units (hashCost).
func (d *Devnet) HashWork() (txs, units int64) {
	return d.hashed.Load(), d.hashedUnits.Load()
}
