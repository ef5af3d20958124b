package testenv

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Module is nodegate's module path, the prefix of its own packages.
const Module = "github.com/nodegate/nodegate/"

// Imports is what the package in dir imports, by file: the import paths of
// every .go file of the package that is not a test file. A package's test
// asserts with it which packages it must not depend on (its doc.go's
// rules), without building anything.
func Imports(t testing.TB, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
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
			out[filepath.Base(name)] = append(out[filepath.Base(name)], path)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no Go files with imports in %s", dir)
	}
	return out
}
