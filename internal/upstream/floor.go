package upstream

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// How far back each member serves (docs/pools.md, "Old blocks: state and
// logs floors"): per kind of old data a call may need (methods.Needs:
// state, or history — bodies, receipts, logs), the earliest block the
// member serves it for, its floor. A floor is the operator's
// (MemberConfig.StateFrom, LogsFrom; archive: both 0), else probed at start
// and periodically (floorprobe.go), and in both cases raised by a member's
// own answer saying it no longer holds a block (floorerrors.go). A call
// naming block N that needs old data goes only to members whose floor of
// that kind is at or below N; when none is, it is answered at once with
// floorError, never sent.

// Floor is an operator's word on the earliest block a member serves of
// one kind: Set says it was given (From 0: every block).
type Floor struct {
	From uint64
	Set  bool
}

// floors are a member's floors, one per kind of need (index
// methods.NeedsNothing unused); configured kinds are not probed.
type floors struct {
	at         [methods.NumNeeds]atomic.Uint64
	configured [methods.NumNeeds]bool
	// window, when not 0, is how many blocks behind its head the member
	// keeps (a floor that moves with the head, as a full node's recent
	// states: two probes found it rose at least half as far as the head
	// did; floorprobe.go): its floor is then at least its head less window.
	window [methods.NumNeeds]atomic.Uint64
	// learned wakes the member's probe (floorprobe.go) when an answer
	// moved a floor: the floor learned is only above the block asked.
	learned chan struct{}
}

// floor is m's floor of kind now: the one set, or, for a floor that moves
// with the head, its head less the blocks it keeps when that is higher.
func (m *Member) floor(kind methods.Needs) uint64 {
	f := m.floors.at[kind].Load()
	if w := m.floors.window[kind].Load(); w != 0 {
		if h := m.Head(); h > w {
			f = max(f, h-w)
		}
	}
	return f
}

func (f *floors) configure(kind methods.Needs, c Floor) {
	if c.Set {
		f.at[kind].Store(c.From)
		f.configured[kind] = true
	}
}

// raise moves the floor of kind to at least n; it reports whether it moved.
func (f *floors) raise(kind methods.Needs, n uint64) bool {
	for {
		old := f.at[kind].Load()
		if old >= n {
			return false
		}
		if f.at[kind].CompareAndSwap(old, n) {
			return true
		}
	}
}

// oldBlock is what a call needs of old data: the kind and the lowest block
// it names by number (a log filter's fromBlock); kind NeedsNothing when it
// needs nothing old or names no number (a tag, a hash).
type oldBlock struct {
	kind   methods.Needs
	number uint64
}

// oldBlockOf is what a call of kind k with params needs of old data; ref
// is the block it names (blockOf), the block read unless it is a log
// filter's range (then its fromBlock).
func (k kind) oldBlockOf(params json.RawMessage, ref blockRef) oldBlock {
	if k.Needs == methods.NeedsNothing || len(params) == 0 {
		return oldBlock{}
	}
	if k.Block == methods.BlockLogFilter {
		ref = logsFrom(jsonrpc.Element(params, 0))
	}
	if !ref.named {
		return oldBlock{}
	}
	return oldBlock{kind: k.Needs, number: ref.number}
}

// logsFrom is the first block a log filter reads: its fromBlock when that
// is a number ("earliest": 0); a blockHash, a tag or none name no number.
func logsFrom(filter []byte) blockRef {
	var ref blockRef
	_ = jsonrpc.Fields(filter, func(key, value []byte) bool {
		switch string(key) {
		case "fromBlock":
			ref = blockValue(value)
		case "blockHash":
			ref = blockRef{}
			return false
		}
		return true
	})
	return ref
}

// serves reports whether m's floor lets it answer a call needing old.
func (m *Member) serves(old oldBlock) bool {
	return old.kind == methods.NeedsNothing || m.floor(old.kind) <= old.number
}

// skipBelowFloor marks as tried the members whose floor is above the block
// a call needs. When every member's is, it returns the answer the call
// gets instead of being sent (floorError); nil otherwise.
func (p *Pool) skipBelowFloor(old oldBlock, tried []bool) *jsonrpc.Response {
	if old.kind == methods.NeedsNothing {
		return nil
	}
	earliest, any := ^uint64(0), false
	for i, m := range p.members {
		if m.serves(old) {
			any = true
			continue
		}
		earliest = min(earliest, m.floor(old.kind))
		tried[i] = true
	}
	if any {
		return nil
	}
	p.refusedOld(old.kind)
	return &jsonrpc.Response{Err: floorError(old, earliest)}
}

// floorError is the answer to a call no member serves: code
// CodePrunedHistory, naming the kind, the block and the earliest block a
// member serves, e.g. "no upstream serves state at block 0x10 (earliest
// 0x3e8)".
func floorError(old oldBlock, earliest uint64) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodePrunedHistory,
		Message: fmt.Sprintf("no upstream serves %s at block %#x (earliest %#x)", old.kind, old.number, earliest)}
}

// learnFloor reports whether resp, m's answer to a call needing old,
// says m no longer holds what the call needs; it then raises m's floor of
// the kind the answer names above the block (when the call names one).
func (p *Pool) learnFloor(m *Member, old oldBlock, resp *jsonrpc.Response) bool {
	kind := prunedKind(resp.Err)
	if kind == methods.NeedsNothing {
		return false
	}
	if old.kind != methods.NeedsNothing && m.floors.raise(kind, old.number+1) {
		p.floorMoved(m, kind)
		select {
		case m.floors.learned <- struct{}{}:
		default:
		}
	}
	return true
}

// pruned is Send's step after m answered a call needing old (naming its
// block by number) that it no longer holds the block: m's floor moved
// (learnFloor) and the call is asked again of a member whose floor is at
// or below the block (again), or, when none is left, answered with
// refused (floorError). A call naming no number (a hash, a tag) is left to
// the node-fault retry (classify.go).
func (p *Pool) pruned(m *Member, old oldBlock, resp *jsonrpc.Response, tried []bool) (again bool, refused *jsonrpc.Response) {
	if old.kind == methods.NeedsNothing || !p.learnFloor(m, old, resp) {
		return false, nil
	}
	return true, p.skipBelowFloor(old, tried)
}

// answerOf is Send's result for an answer nodegate gives itself.
func answerOf(resp *jsonrpc.Response) ([]byte, *jsonrpc.Response, string, error) {
	return jsonrpc.AppendResponse(nil, json.RawMessage("1"), resp), resp, "", nil
}

// SetFloorHooks sets OnFloor and OnFloorRefused (before Start).
func (p *Pool) SetFloorHooks(moved func(member, kind string, from uint64), refused func(kind string)) {
	p.OnFloor, p.OnFloorRefused = moved, refused
}

// FloorsNow calls fn with each member's floor of each kind.
func (p *Pool) FloorsNow(fn func(member, kind string, from uint64)) {
	for _, m := range p.members {
		for _, kind := range probeKinds {
			fn(m.Name(), kind.String(), m.floor(kind))
		}
	}
}

// floorMoved tells OnFloor of m's floor of kind.
func (p *Pool) floorMoved(m *Member, kind methods.Needs) {
	if p.OnFloor != nil {
		p.OnFloor(m.Name(), kind.String(), m.floor(kind))
	}
}

// refusedOld tells OnFloorRefused of a call no member serves.
func (p *Pool) refusedOld(kind methods.Needs) {
	if p.OnFloorRefused != nil {
		p.OnFloorRefused(kind.String())
	}
}

// batchOlds are what the calls of an upstream batch need of old data,
// read only when one of them needs some (nil: none does).
type batchOlds []oldBlock

func (b batchOlds) at(i int) oldBlock {
	if b == nil {
		return oldBlock{}
	}
	return b[i]
}

func (p *Pool) batchOlds(chunk []BatchCall) batchOlds {
	var out batchOlds
	for i, c := range chunk {
		k := kindOf(c.Rule)
		old := k.oldBlockOf(c.Params, k.blockOf(c.Params))
		if old.kind == methods.NeedsNothing {
			continue
		}
		if out == nil {
			out = make(batchOlds, len(chunk))
		}
		out[i] = old
	}
	return out
}
