package conformance_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentbash/agentbash"

// layers rank the module's packages from the bottom up, by the longest prefix of their path (relative to
// the module): a package imports only packages of its own layer or below. The root internal packages that
// every layer shares are at the bottom; a package no prefix names is at the top (programs, tools, docs).
var layers = []struct {
	rank     int
	prefixes []string
}{
	{0, []string{"internal/jsonenc", "internal/genversion", "internal/proctest", "internal/shellcorpus", "internal/mutate"}},
	{1, []string{"spec", "gen/toolschema"}},
	{2, []string{"runtime"}},
	{3, []string{"gen", "variants"}},
	{4, []string{"conformance/cases", "conformance/target", "conformance/model"}},
	{5, []string{"conformance"}},
}

const topRank = 6

// rankOf is the layer of a package of the module (its path relative to the module).
func rankOf(rel string) int {
	rank, best := topRank, -1
	for _, l := range layers {
		for _, p := range l.prefixes {
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > best {
				rank, best = l.rank, len(p)
			}
		}
	}
	return rank
}

// listed is a package as `go list -deps -json` describes it.
type listed struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
}

// listModule lists every package of the module with its imports and dependencies (go list -deps).
func listModule(t *testing.T) map[string]listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with")
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]listed{}
	d := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := d.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if rel, ok := relative(p.ImportPath); ok {
			pkgs[rel] = p
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages of the module", len(pkgs))
	}
	return pkgs
}

// relative is a package's path inside the module.
func relative(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// under reports whether a package is dir or below it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// The packages are layered (spec, runtime, gen and variants, case derivation and targets, the check,
// programs): every import goes to the package's own layer or below, so no package reaches up into a higher
// layer or into a higher layer's internal packages (Go's own rule already keeps X/internal to X's tree).
func TestLayersImportDownward(t *testing.T) {
	for rel, p := range listModule(t) {
		for _, imp := range p.Imports {
			to, ok := relative(imp)
			if !ok {
				continue
			}
			if rankOf(to) > rankOf(rel) {
				what := "imports"
				if slices.Contains(strings.Split(to, "/"), "internal") {
					what = "imports the internal package"
				}
				t.Errorf("%s (layer %d) %s %s of layer %d, above it", rel, rankOf(rel), what, to, rankOf(to))
			}
		}
	}
}

// The conformance split holds: deriving cases is pure (no target, no server, no I/O of its own), the
// targets know nothing of the check or its reports, and nothing below conformance imports it.
func TestConformanceLayers(t *testing.T) {
	pkgs := listModule(t)
	for _, tc := range []struct {
		name      string
		pkgs      func(rel string) bool
		forbidden func(dep string) bool
		direct    bool // only the direct imports count (the standard library's I/O packages)
	}{
		{"case derivation imports no target, the check or a server",
			func(rel string) bool { return under(rel, "conformance/cases") },
			func(dep string) bool {
				rel, ok := relative(dep)
				return ok && (under(rel, "conformance/target") || under(rel, "conformance/model") || rel == "conformance" ||
					under(rel, "runtime/serve") || under(rel, "runtime/proc"))
			}, false},
		{"case derivation does no I/O",
			func(rel string) bool { return under(rel, "conformance/cases") },
			func(dep string) bool {
				return slices.Contains([]string{"os", "os/exec", "io/fs", "net", "net/http", "syscall"}, dep)
			}, true},
		{"targets import no check, report or case code",
			func(rel string) bool { return under(rel, "conformance/target") },
			func(dep string) bool {
				rel, ok := relative(dep)
				return ok && (rel == "conformance" || under(rel, "conformance/cases") ||
					under(rel, "conformance/conformancetest") || under(rel, "conformance/hosts"))
			}, false},
		{"nothing in runtime, spec or gen imports conformance",
			func(rel string) bool { return under(rel, "runtime") || under(rel, "spec") || under(rel, "gen") },
			func(dep string) bool {
				rel, ok := relative(dep)
				return ok && under(rel, "conformance")
			}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for rel, p := range pkgs {
				if !tc.pkgs(rel) {
					continue
				}
				n++
				deps := p.Deps
				if tc.direct {
					deps = p.Imports
				}
				for _, d := range deps {
					if tc.forbidden(d) {
						t.Errorf("%s imports %s", rel, d)
					}
				}
			}
			if n == 0 {
				t.Error("no package is checked")
			}
		})
	}
}
