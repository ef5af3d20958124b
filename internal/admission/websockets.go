package admission

import (
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// WebSocket counts one more open (or upgrading) WebSocket for key, or
// refuses it with the upgrade's 429 answer when its plan's
// max_ws_connections are open. release gives the place back when the
// connection ends (or its upgrade fails); it is called once.
func (a *Keys) WebSocket(key *keys.Key) (release func(), refused *jsonrpc.Error) {
	if key == nil || key.Plan.MaxWSConnections <= 0 {
		return nothing, nil
	}
	n := &a.of(key.ID).webSockets
	if takeUpTo(n, int64(key.Plan.MaxWSConnections), 1) == 0 {
		return nothing, ErrTooManyWebSockets(key.Plan.MaxWSConnections)
	}
	return func() { n.Add(-1) }, nil
}

// ErrTooManyWebSockets is the upgrade's answer when the key's plan allows
// no more connections.
func ErrTooManyWebSockets(limit int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded, Status: http.StatusTooManyRequests,
		Message: "too many WebSocket connections for this API key (plan limit " + strconv.Itoa(limit) + ")"}
}
