package admission

import (
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Calls reserves up to want calls in flight for key (HTTP and WebSocket
// together): as many as its plan's max_in_flight has free. A request
// gets them all or, when its key has none free, is refused whole: refused
// is then the 429 answer. A key without a limit (or no key) gets want.
// release gives the reservation back; it is called once.
func (a *Keys) Calls(key *keys.Key, want int) (got int, release func(), refused *jsonrpc.Error) {
	if want <= 0 || key == nil || key.Plan.MaxInFlight <= 0 {
		return want, nothing, nil
	}
	n := &a.of(key.ID).calls
	g := takeUpTo(n, int64(key.Plan.MaxInFlight), int64(want))
	if g == 0 {
		return 0, nothing, ErrTooManyInFlight(key.Plan.MaxInFlight)
	}
	return int(g), func() { n.Add(-g) }, nil
}

// Hold counts one more call in flight for key without refusing it: the
// work an admitted call leaves running once it is answered (a broadcast
// write's deliveries to the other nodes), so that its key's next requests
// find the slot taken until that work ends (its admitted request still
// held a slot when it began, so the count passes max_in_flight by one at
// most, for a moment). release gives it back; it is called once.
func (a *Keys) Hold(key *keys.Key) (release func()) {
	if key == nil || key.Plan.MaxInFlight <= 0 {
		return nothing
	}
	n := &a.of(key.ID).calls
	n.Add(1)
	return func() { n.Add(-1) }
}

// ErrTooManyInFlight is the 429 answer to a request of a key that already
// has its plan's calls in flight.
func ErrTooManyInFlight(limit int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded, Status: http.StatusTooManyRequests,
		Message: "too many calls in flight for this API key (limit " + strconv.Itoa(limit) + "): wait for answers before sending more",
		Data:    []byte(`{"max_in_flight":` + strconv.Itoa(limit) + `}`),
		Header:  http.Header{"Retry-After": []string{"1"}}}
}
