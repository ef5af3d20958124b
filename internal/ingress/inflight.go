package ingress

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// inFlight counts each key's calls in flight on this process, HTTP and
// WebSocket together, against its plan's max_in_flight.
type inFlight struct {
	byKey sync.Map // key id → *atomic.Int64
}

// take reserves up to want calls for key: as many as its plan has free,
// which is 0 when it has none (the request is then refused whole). A key
// without a limit gets want. release gives the reservation back.
func (f *inFlight) take(key *keys.Key, want int) (got int, release func()) {
	if key == nil || key.Plan.MaxInFlight <= 0 || want <= 0 {
		return want, func() {}
	}
	v, ok := f.byKey.Load(key.ID)
	if !ok {
		v, _ = f.byKey.LoadOrStore(key.ID, new(atomic.Int64))
	}
	n := v.(*atomic.Int64)
	limit := int64(key.Plan.MaxInFlight)
	for {
		cur := n.Load()
		if cur >= limit {
			return 0, func() {}
		}
		g := min(int64(want), limit-cur)
		if n.CompareAndSwap(cur, cur+g) {
			return int(g), func() { n.Add(-g) }
		}
	}
}

// errTooManyInFlight is the 429 answer to a request of a key that already
// has its plan's calls in flight.
func errTooManyInFlight(limit int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded, Status: http.StatusTooManyRequests,
		Message: "too many calls in flight for this project ID (limit " + strconv.Itoa(limit) + "): wait for answers before sending more",
		Data:    []byte(`{"max_in_flight":` + strconv.Itoa(limit) + `}`),
		Header:  http.Header{"Retry-After": []string{"1"}}}
}
