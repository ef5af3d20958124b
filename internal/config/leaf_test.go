package config

import (
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestConfigIsALeaf: config describes and imports no domain package; the
// mappings from the configuration onto the domain live in service (doc.go).
// Of nodegate's own packages it may import only ident, the leaf that holds
// the syntactic rules of names, plan, the plan type it decodes, and
// familykind, the leaf that names the network families.
func TestConfigIsALeaf(t *testing.T) {
	allowed := map[string]bool{testenv.Module + "internal/ident": true, testenv.Module + "internal/plan": true,
		testenv.Module + "internal/familykind": true}
	for file, paths := range testenv.Imports(t, ".") {
		for _, path := range paths {
			if strings.HasPrefix(path, testenv.Module) && !allowed[path] {
				t.Errorf("%s imports %s: config may import no domain package", file, path)
			}
		}
	}
}
