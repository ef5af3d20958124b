package family

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/familykind"
)

// namesExempt are the places that spell a family's head or chain-id
// method by its name because that is what they are, not a decision by
// family: the method table's entries (each method's rule, by its name),
// the embedded devnet (which answers those methods), the load tool
// (the params and static answers of each method it sends) and the fault
// proxy (test support in front of EVM nodes, telling the pool's own
// calls from a client's).
var namesExempt = []string{
	"internal/methods/table.go",
	"internal/methods/standard.go",
	"internal/methods/starknet.go",
	"internal/starknet/devnet/",
	"internal/bench/",
	"internal/faultproxy/",
}

// namesAllowed are the places outside this package that still name a
// family or its head or chain-id method as a decision, each with a
// comment there saying why (issue 28: at most 2).
var namesAllowed = map[string]string{}

// TestNoFamilyNamesElsewhere: outside internal/family and
// internal/familykind, production code asks the family for its name and
// its head and chain-id methods (familykind.Kind, Family) and spells none
// of them as a string: a new family then changes no other package. Test
// files and test-support packages (whose name ends in "test", testenv)
// are not scanned.
func TestNoFamilyNamesElsewhere(t *testing.T) {
	t.Parallel()
	if len(namesAllowed) > 2 {
		t.Fatalf("%d places allowed to name a family; at most 2", len(namesAllowed))
	}
	found, err := familyNamesIn("../..", familyWords())
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range found {
		if _, ok := namesAllowed[at.file+" "+at.word]; !ok {
			t.Errorf("%s names %q: ask the family (familykind.Kind or family.Of)", at.pos, at.word)
		}
	}
}

// familyWords are the strings only internal/family{,kind} may spell: each
// family's name and its head and chain-id methods.
func familyWords() map[string]bool {
	words := map[string]bool{}
	for _, k := range familykind.All {
		words[k.Name], words[k.HeadMethod], words[k.ChainIDMethod] = true, true, true
	}
	delete(words, "")
	return words
}

type familyName struct{ pos, file, word string }

// familyNamesIn lists the string literals in the production Go files
// under root that are one of words.
func familyNamesIn(root string, words map[string]bool) ([]familyName, error) {
	var out []familyName
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+"/"))
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" ||
				strings.HasSuffix(name, "test") || name == "testenv" ||
				rel == "internal/family" || rel == "internal/familykind") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || exemptFromNames(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && words[s] {
				out = append(out, familyName{fset.Position(lit.Pos()).String(), rel, s})
			}
			return true
		})
		return nil
	})
	return out, err
}

func exemptFromNames(rel string) bool {
	for _, e := range namesExempt {
		if rel == e || strings.HasSuffix(e, "/") && strings.HasPrefix(rel, e) {
			return true
		}
	}
	return false
}
