package family

import (
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestImportsNoCaller: a family is given what it needs (Embedded) and
// knows neither the service that asks it nor the wire, the keys or the
// plans.
func TestImportsNoCaller(t *testing.T) {
	t.Parallel()
	forbidden := []string{"internal/service", "internal/ingress", "internal/keys", "internal/plan", "cmd/"}
	for file, paths := range testenv.Imports(t, ".") {
		for _, path := range paths {
			for _, f := range forbidden {
				if strings.HasPrefix(path, testenv.Module+f) {
					t.Errorf("%s imports %s", file, path)
				}
			}
		}
	}
}
