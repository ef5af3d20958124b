package upstream

import (
	"context"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The probe of each member's floors (floor.go): once its head is known,
// and again every PoolConfig.FloorProbe, a binary search over block
// numbers with a cheap read of each kind (requests.probeAt): the state of
// the zero address, a block's receipts. A kind the operator configured is
// never probed; a probe that meets anything but a good answer or a
// pruned one (floorerrors.go) leaves the floor as it was.

// DefaultFloorProbe is how often members' floors are probed again.
const DefaultFloorProbe = 5 * time.Minute

// floorReprobeGap is the least time between two probes of a member: an
// answer that moved a floor (a pruned node's window moves with its head)
// brings the next probe forward, but no nearer than this.
const floorReprobeGap = 10 * time.Second

// probeKinds are the kinds of floor a probe looks for.
var probeKinds = []methods.Needs{methods.NeedsState, methods.NeedsHistory}

// probeFloors probes m's floors until ctx ends: first once its head is
// known, then every FloorProbe, or sooner (floorReprobeGap after the last)
// when one of its answers moved a floor.
func (p *Pool) probeFloors(ctx context.Context, m *Member) {
	if p.req.probeAt(methods.NeedsState, 0) == nil && p.req.probeAt(methods.NeedsHistory, 0) == nil {
		return
	}
	wait := time.Duration(0)
	var (
		last time.Time
		seen [methods.NumNeeds]probeSeen
	)
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-m.floors.learned:
			t.Stop()
		}
		if !m.Healthy() || m.Head() == 0 {
			wait = p.cfg.HeadInterval // not yet: its head is not known
			continue
		}
		if since := time.Since(last); !last.IsZero() && since < floorReprobeGap {
			wait = floorReprobeGap - since
			continue
		}
		last = time.Now()
		for _, kind := range probeKinds {
			if !m.floors.configured[kind] {
				p.probeKind(ctx, m, kind, &seen[kind])
			}
		}
		wait = p.cfg.FloorProbe
	}
}

// probeSeen is what the last probe of a kind found: the floor, at which head.
type probeSeen struct{ floor, head uint64 }

// probeKind probes m's floor of kind and sets it. When it moved up since
// the last probe at least half as far as the head did, the floor moves
// with the head (a full node's recent states): m keeps the blocks since
// its head less window, and its floor follows its head between probes;
// when it stayed while the head moved, it is a fixed floor.
func (p *Pool) probeKind(ctx context.Context, m *Member, kind methods.Needs, last *probeSeen) {
	head := m.Head()
	n, ok := p.probeFloor(ctx, m, kind)
	if !ok {
		return
	}
	switch {
	case n == 0 || n >= head:
		m.floors.window[kind].Store(0)
	case last.floor != 0 && n > last.floor && head > last.head && 2*(n-last.floor) >= head-last.head:
		m.floors.window[kind].Store(head - n)
	case n == last.floor && head > last.head:
		m.floors.window[kind].Store(0) // it stayed while the head moved: a fixed floor
	}
	*last = probeSeen{floor: n, head: head}
	if m.floors.at[kind].Swap(n) != n {
		p.floorMoved(m, kind)
	}
}

// probeFloor is the earliest block m serves of kind, found by binary
// search between block 1 and m's head (a member that serves block 1 is
// taken to serve every block: go-ethereum keeps the genesis block's body
// when it prunes history); false when the search met an answer that
// says neither (an error of another kind, a lost connection) or m's head
// is not served either.
func (p *Pool) probeFloor(ctx context.Context, m *Member, kind methods.Needs) (uint64, bool) {
	head := m.Head()
	served, ok := p.probeServes(ctx, m, kind, 1)
	if !ok || served {
		return 0, ok
	}
	if served, ok = p.probeServes(ctx, m, kind, head); !ok || !served {
		return 0, false
	}
	lo, hi := uint64(1), head // lo is not served, hi is
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		served, ok := p.probeServes(ctx, m, kind, mid)
		if !ok {
			return 0, false
		}
		if served {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// probeServes asks m whether it serves kind at block n: served (a good
// answer, not null), or not (an answer saying it no longer holds the
// block); ok is false for any other outcome.
func (p *Pool) probeServes(ctx context.Context, m *Member, kind methods.Needs, n uint64) (served, ok bool) {
	actx, cancel := context.WithTimeout(ctx, p.cfg.AttemptTimeout)
	defer cancel()
	out, err := m.Upstream.Do(actx, p.req.probeAt(kind, n))
	if err != nil {
		return false, false
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	switch {
	case err != nil:
		return false, false
	case resp.Err != nil:
		return false, prunedKind(resp.Err) == kind
	case len(resp.Result) == 0 || string(resp.Result) == "null":
		return false, false
	}
	return true, true
}
