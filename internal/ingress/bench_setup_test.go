package ingress_test

import (
	"net/http"
	"testing"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
)

const benchKey = "0123456789abcdef0123456789abcdef"

// gatewayHandler is nodegate's HTTP handler with one key and one EVM
// network on up: the key check and the method rules run as in production.
// It is the only part of the benchmarks that knows how ingress is wired.
func gatewayHandler(b *testing.B, up upstream.Upstream) http.Handler {
	b.Helper()
	ks, err := keys.NewStatic("team", benchKey)
	if err != nil {
		b.Fatal(err)
	}
	s := &ingress.Server{
		Keys:     ks,
		Network:  &pipeline.Network{Name: "bench", Family: methods.FamilyEVM, Methods: methods.NewTable(methods.FamilyEVM), Upstream: up},
		Pipeline: pipeline.Build(pipeline.Options{}),
	}
	s.SetReady(true)
	return s.Handler()
}
