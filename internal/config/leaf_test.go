package config

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestConfigIsALeaf: config describes and imports no domain package; the
// mappings from the configuration onto the domain live in service (doc.go).
// Of nodegate's own packages it may import only ident, the leaf that holds
// the syntactic rules of names.
func TestConfigIsALeaf(t *testing.T) {
	const module = "github.com/nodegate/nodegate/"
	allowed := map[string]bool{module + "internal/ident": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(path, module) && !allowed[path] {
				t.Errorf("%s imports %s: config may import no domain package", name, path)
			}
		}
	}
}
