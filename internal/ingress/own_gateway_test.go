package ingress_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/pipeline"
)

// ownGateway is an ingress of a test's own (package gatewaytest, not a
// whole service) with the WebSocket limits the test sets, in front of a
// network of its own over the wire tests' dev chain (gw.Node): what its
// clients subscribe and hold is theirs alone to count.
type ownGateway struct {
	wireGateway
	server  *ingress.Server
	network *pipeline.Network
}

func startOwnGateway(t testing.TB, limits ingress.WSLimits) *ownGateway {
	t.Helper()
	n, closeNet := chainNetwork("own", gw.Node)
	t.Cleanup(closeNet)
	s := gatewaytest.Server(t, n)
	s.WebSocket = limits
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &ownGateway{wireGateway: wireGateway{url: srv.URL, GeneratedKey: gatewaytest.Key, Node: gw.Node}, server: s, network: n}
}

// dial opens a WebSocket to g with its key.
func (g *ownGateway) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	return dialURL(t, websocket.DefaultDialer, g.WSURL()+"/ws/v3/"+g.GeneratedKey)
}
