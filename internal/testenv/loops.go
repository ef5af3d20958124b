package testenv

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// DeadlineLoops lists, as file:line, the hand-written deadline loops in
// the test files under root: a for loop whose condition compares
// time.Now() to a deadline (time.Now().Before(d), time.Now().After(d)), or
// whose body asks the same in an if. Tests wait with WaitFor instead; a
// loop that sleeps or works until a time as its subject (a load run) says
// so with time.Since or time.Until.
func DeadlineLoops(root string) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found, err := deadlineLoopsIn(fset, path, nil)
		out = append(out, found...)
		return err
	})
	return out, err
}

// deadlineLoopsIn parses one file (src, or the file at path when nil).
func deadlineLoopsIn(fset *token.FileSet, path string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("deadline loops: %w", err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		loop, ok := n.(*ast.ForStmt)
		if !ok {
			return true
		}
		hit := loop.Cond != nil && comparesNow(loop.Cond)
		if !hit {
			ast.Inspect(loop.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false // a closure's own loop is its own
				case *ast.IfStmt:
					if comparesNow(n.Cond) {
						hit = true
					}
				}
				return !hit
			})
		}
		if hit {
			out = append(out, fset.Position(loop.Pos()).String())
		}
		return true
	})
	return out, nil
}

// comparesNow reports whether e holds time.Now().Before(…) or
// time.Now().After(…).
func comparesNow(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Before" && sel.Sel.Name != "After") {
			return true
		}
		if now, ok := sel.X.(*ast.CallExpr); ok && isTimeNow(now.Fun) {
			found = true
		}
		return !found
	})
	return found
}

func isTimeNow(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Now" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "time"
}
