package upstream

import (
	"context"
	"encoding/json"

	"github.com/nodegate/nodegate/jsonrpc"
)

// An answer judged on the chain as it was when it came may name a block
// that left the chain before the answer goes on: the pool learnt of a
// reorganisation (a newHeads push, a poll, another replica's head) while
// the answer was on its way out — above all while awaitShared held it
// until the new head was published (fleethead.go). Given as it is, it
// would show the branch the pool has just left after the pool, and
// through Redis the fleet, already shows the new one: a client given
// "latest" from the old branch would find the new block at that height
// at its next call. So a call's answer is looked at once more before it
// goes: when the pool's Epoch moved since the call began, the answer is
// placed again (canonjudge.go), and one that now names a block off the
// chain, or another block than a peer's claim at its height, is asked
// again, once, on the chain as it is now (in an upstream batch, that call
// goes alone, as every call the batch did not answer does). A write is
// never asked again.
//
// It costs two atomic loads of the epoch per call (when it begins and
// when it ends); the answer is read again only after a reorganisation.

// release waits until an answer of a call begun at epoch may go (the
// head moves it may show are published: awaitShared) and reports whether
// the chain moved since the call began: only then is the answer placed
// again (leftUnder).
func (p *Pool) release(ctx context.Context, epoch uint64) (moved bool) {
	p.awaitShared(ctx) // fleethead.go
	return p.epoch.Load() != epoch
}

// leftUnder reports whether resp, the answer to a call of kind k with
// params, names a block off the chain as it is now, or another block than
// a peer's claim at its height.
func (p *Pool) leftUnder(k kind, params json.RawMessage, resp *jsonrpc.Response) bool {
	if resp == nil || k.Write {
		return false
	}
	_, place := p.placeAnswer(k, params, resp)
	return place == placeOff || place == placeClaimed
}

// dropLeftUnder takes from out, the answers of an upstream batch of
// calls, those leftUnder finds: each of those calls goes alone
// (BatchAnswer).
func (p *Pool) dropLeftUnder(calls []BatchCall, out []BatchAnswer) {
	for i, a := range out {
		if p.leftUnder(kindOf(calls[i].Rule), calls[i].Params, a.Resp) {
			out[i].Resp = nil
		}
	}
}
