package ingress

import (
	"context"
	"sync"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/jsonrpc"
)

// RateMeter is the Metering of the rate limits: it hands a
// ratelimit.Meter each call's method and the network's name and method
// table as plain values (ratelimit does not import the pipeline), and
// gives the credits the meter priced to the calls' records.
type RateMeter struct {
	Meter *ratelimit.Meter
}

// meterBatch is how many calls a request may have before their copies for
// the meter come from meterCopies rather than the stack.
const meterBatch = 8

// meterCopies are the meter's copies of larger requests' calls, reused
// from request to request.
var meterCopies = sync.Pool{New: func() any { return new([]ratelimit.Call) }}

// Admit prices and admits calls (Metering). A call the key's allowlists
// refuse (pipeline.RefusedByKey) costs nothing, like every refusal made
// before a node ran (docs/ratelimit.md).
func (r RateMeter) Admit(ctx context.Context, key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, invalid int) *jsonrpc.Error {
	var buf [meterBatch]ratelimit.Call
	priced, pooled := meterCalls(buf[:0], calls)
	if key != nil {
		for i, c := range calls {
			priced[i].Refused = pipeline.RefusedByKey(c) // not charged: no node runs it
		}
	}
	refused := r.Meter.Admit(ctx, key, meterNetwork(n), priced, invalid)
	for i, c := range calls {
		c.SetCredits(priced[i].Credits)
	}
	giveBack(pooled)
	return refused
}

// Record counts the answered calls (Metering).
func (r RateMeter) Record(key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, answers []*jsonrpc.Response, invalid int) {
	var buf [meterBatch]ratelimit.Call
	counted, pooled := meterCalls(buf[:0], calls)
	r.Meter.Record(key, meterNetwork(n), counted, answers, invalid)
	giveBack(pooled)
}

// Notifications opens the account notifications are charged to (Metering).
func (r RateMeter) Notifications(ctx context.Context, key *keys.Key, n *pipeline.Network) *ratelimit.NoteAccount {
	return r.Meter.Notifications(ctx, key, meterNetwork(n).Name)
}

// meterNetwork is the meter's view of n (the zero Network for none).
func meterNetwork(n *pipeline.Network) ratelimit.Network {
	if n == nil {
		return ratelimit.Network{}
	}
	return ratelimit.Network{Name: n.Name, Methods: n.Methods}
}

// meterCalls is the meter's view of calls: in dst when it has room, else
// in a slice from meterCopies (pooled), to be given back with giveBack.
func meterCalls(dst []ratelimit.Call, calls []*pipeline.Call) (view []ratelimit.Call, pooled *[]ratelimit.Call) {
	if len(calls) <= cap(dst) {
		return appendCalls(dst, calls), nil
	}
	pooled = meterCopies.Get().(*[]ratelimit.Call)
	*pooled = appendCalls((*pooled)[:0], calls)
	return *pooled, pooled
}

func appendCalls(dst []ratelimit.Call, calls []*pipeline.Call) []ratelimit.Call {
	for _, c := range calls {
		dst = append(dst, ratelimit.Call{Method: c.Req.Method, Credits: c.Credits(), Took: c.Took()})
	}
	return dst
}

// giveBack returns a pooled view to meterCopies, holding no method names.
func giveBack(pooled *[]ratelimit.Call) {
	if pooled == nil {
		return
	}
	clear(*pooled)
	*pooled = (*pooled)[:0]
	meterCopies.Put(pooled)
}
