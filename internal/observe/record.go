package observe

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

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
	calls   []*call // with the access log only; by Call.Pos once expect ran
	slots   int     // the calls expected (expect): calls[:slots] are in request order
}

// call is one call's line of the access log.
type call struct {
	method   string // methods.Label
	code     telemetry.Code
	duration time.Duration
	upstream string // set by the attempt observer
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
	r.network, r.keyID, r.slots = "", "", 0
	clear(r.calls)
	if cap(r.calls) > 64 {
		r.calls = nil
	}
	r.calls = r.calls[:0]
	requestPool.Put(r)
}

// expect makes room for the request's n calls, so that each is listed at
// its place in the request (Call.Pos), not in the order calls finish.
func (r *request) expect(n int) {
	r.mu.Lock()
	r.slots = n
	r.calls = append(r.calls[:0], make([]*call, n)...)
	r.mu.Unlock()
}

// note records who made the request and, with the access log, one call.
func (r *request) note(network, keyID string, c *call, pos int) {
	r.counted.Add(1)
	r.mu.Lock()
	if r.network == "" {
		r.network, r.keyID = network, keyID
	}
	switch {
	case c == nil:
	case pos >= 0 && pos < r.slots && r.calls[pos] == nil:
		r.calls[pos] = c
	default:
		r.calls = append(r.calls, c)
	}
	r.mu.Unlock()
}
