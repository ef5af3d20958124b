package ingress_test

import (
	"net/http"
	"testing"

	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
)

// gatewayHandler is nodegate's HTTP handler with one key and one EVM
// network on up (package gatewaytest): the key check and the method rules
// run as in production.
func gatewayHandler(b *testing.B, up upstream.Upstream) http.Handler {
	b.Helper()
	n := &pipeline.Network{Name: "bench", Methods: methods.NewTable(methods.FamilyEVM), Upstream: up}
	if pool, ok := up.(*upstream.Pool); ok {
		n.Pool = pool // upstream batches
	}
	return gatewaytest.Server(b, n).Handler()
}
