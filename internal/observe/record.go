package observe

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/telemetry"
)

// request is what is learnt about one HTTP request while it is served:
// the middleware puts it in the request's context, the call wrapper and
// the metering wrapper fill it.
type request struct {
	// counted is how many series counts the request's calls made; a
	// request with none was refused before any call was read.
	counted atomic.Int32
	// metered is set once the body was parsed and metered (Admit ran):
	// its invalid entries are then counted by the metering wrapper.
	metered atomic.Bool

	mu      sync.Mutex
	network string
	keyID   string
	calls   []*call // with the access log only, in the order they ended
	// order is the request's calls as the client sent them (set at
	// admission), so that a batch's line lists them in that order.
	order []*pipeline.Call
}

// call is one call's line of the access log.
type call struct {
	method   string // methods.Label
	code     telemetry.Code
	duration time.Duration
	upstream string         // set by the attempt observer
	of       *pipeline.Call // the call this line is of
}

type requestKey struct{}
type callKey struct{}

func requestFrom(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

var requestPool = sync.Pool{New: func() any { return new(request) }}

func getRequest() *request { return requestPool.Get().(*request) }

func putRequest(r *request) {
	r.counted.Store(0)
	r.metered.Store(false)
	r.network, r.keyID = "", ""
	r.order = nil
	clear(r.calls)
	if cap(r.calls) > 64 {
		r.calls = nil
	}
	r.calls = r.calls[:0]
	requestPool.Put(r)
}

// note records who made the request and, with the access log, one call.
func (r *request) note(network, keyID string, c *call) {
	r.counted.Add(1)
	r.mu.Lock()
	if r.network == "" {
		r.network, r.keyID = network, keyID
	}
	if c != nil {
		r.calls = append(r.calls, c)
	}
	r.mu.Unlock()
}

// inOrder returns calls sorted as the client sent them, when the
// request's order is known; calls is sorted in place.
func (r *request) inOrder(calls []*call) []*call {
	if len(calls) < 2 || len(r.order) < 2 {
		return calls
	}
	pos := make(map[*pipeline.Call]int, len(r.order))
	for i, c := range r.order {
		pos[c] = i
	}
	slices.SortStableFunc(calls, func(a, b *call) int { return pos[a.of] - pos[b.of] })
	return calls
}
