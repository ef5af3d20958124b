package ratelimit

import (
	"testing"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestImportsNoCaller: ratelimit is given plain values (Network, Call) and
// knows neither the ingress that calls it nor the pipeline whose calls it
// prices, nor the configuration (service maps it: doc.go).
func TestImportsNoCaller(t *testing.T) {
	forbidden := []string{"internal/pipeline", "internal/ingress", "internal/config", "internal/service"}
	for file, paths := range testenv.Imports(t, ".") {
		for _, path := range paths {
			for _, f := range forbidden {
				if path == testenv.Module+f {
					t.Errorf("%s imports %s", file, path)
				}
			}
		}
	}
}
