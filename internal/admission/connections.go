package admission

import (
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Connection counts one more keyed client connection (HTTP or WebSocket)
// for key, or refuses it when its plan's max_connections are open.
// release gives the place back when the connection closes; it is called
// once. The caller decides what a refusal ends: an HTTP connection is
// closed after its answer, a WebSocket upgrade is answered with refused.
func (a *Keys) Connection(key *keys.Key) (release func(), refused *jsonrpc.Error) {
	if key == nil || key.Plan.MaxConnections <= 0 {
		return nothing, nil
	}
	n := &a.of(key.ID).connections
	if takeUpTo(n, int64(key.Plan.MaxConnections), 1) == 0 {
		return nothing, ErrTooManyConnections(key.Plan.MaxConnections)
	}
	return func() { n.Add(-1) }, nil
}

// Connections is key id's keyed connections open now (0 for a key never
// seen).
func (a *Keys) Connections(id string) int {
	v, ok := a.byKey.Load(id)
	if !ok {
		return 0
	}
	return int(v.(*use).connections.Load())
}

// ErrTooManyConnections is the answer when the key's plan allows no more
// open connections.
func ErrTooManyConnections(limit int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded, Status: http.StatusTooManyRequests,
		Message: "too many connections for this API key (plan limit " + strconv.Itoa(limit) + ")"}
}
