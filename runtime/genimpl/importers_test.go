package genimpl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyGeneratedCodeImports: no hand-written file of the module imports genimpl: only generated files
// (a "Code generated ... DO NOT EDIT." header: the adapters gen writes) and tests do. It reads every Go
// file of the module, so it fails for a file added anywhere.
func TestOnlyGeneratedCodeImports(t *testing.T) {
	const path = "github.com/agentbash/agentbash/runtime/genimpl"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	generated := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v != path {
				continue
			}
			rel, _ := filepath.Rel(root, p)
			if !ast.IsGenerated(f) {
				t.Errorf("%s imports %s: only generated code may", rel, path)
			} else {
				generated++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if generated == 0 {
		t.Error("no generated file imports genimpl: the walk found none of the adapters")
	}
}
