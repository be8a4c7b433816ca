package gen

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/golden/*/*_gen.go and ../variants/*/*_gen.go)")

// golden is one generator input and its checked-in output.
type golden struct {
	name, spec, out, pkg string
}

// goldens lists the feature specs (testdata/golden/<name>/<name>.yaml, each a package the build sees
// only when named) and the five built-in variants, whose checked-in adapters are their goldens.
func goldens(t *testing.T) []golden {
	t.Helper()
	var gs []golden
	for _, pattern := range []string{"testdata/golden/*/*.yaml", "../variants/*/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			dir := filepath.Dir(f)
			name := strings.TrimSuffix(filepath.Base(f), ".yaml")
			if name != filepath.Base(dir) {
				continue // only <name>/<name>.yaml
			}
			gs = append(gs, golden{name: name, spec: f, out: filepath.Join(dir, name+"_gen.go"), pkg: PackageName(name)})
		}
	}
	if len(gs) < 9 {
		t.Fatalf("found %d golden specs, want the 4 feature specs and the 5 variants", len(gs))
	}
	return gs
}

// generate writes what a generator command writes beside the spec (GenerateFile: the spec named by its
// base name).
func generate(t *testing.T, g golden) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := GenerateFile(FileConfig{Spec: g.spec, Out: "-", Package: g.pkg}, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden compares the generator's output with the checked-in files byte for byte; -update rewrites
// them.
func TestGolden(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.name, func(t *testing.T) {
			got := generate(t, g)
			if *update {
				if err := os.WriteFile(g.out, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(g.out)
			if err != nil {
				t.Fatalf("%v (run go test ./gen -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale (run go test ./gen -update): %s", g.out, firstDiff(want, got))
			}
		})
	}
}

// TestDeterministic generates every spec several times (map iteration order varies between runs) and from
// two loads of the same file.
func TestDeterministic(t *testing.T) {
	for _, g := range goldens(t) {
		first := generate(t, g)
		for i := 0; i < 5; i++ {
			if again := generate(t, g); !bytes.Equal(first, again) {
				t.Fatalf("%s: run %d differs: %s", g.name, i, firstDiff(first, again))
			}
		}
	}
}

// TestGoldenPackagesBuild compiles and vets every feature golden (a package under testdata, which ./...
// does not reach) and runs the hand-written tests beside it, which drive the generated API on the runtime.
// The built-in variants' adapters are ordinary packages: go vet ./... and go test ./... cover them.
func TestGoldenPackagesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not compiling the golden packages")
	}
	if *update {
		t.Skip("-update: the goldens are being rewritten")
	}
	pkgs, _ := filepath.Glob("testdata/golden/*")
	for i, p := range pkgs {
		pkgs[i] = "./" + filepath.ToSlash(p)
	}
	for _, args := range [][]string{
		append([]string{"vet"}, pkgs...),
		append([]string{"test", "-count=1"}, pkgs...),
	} {
		cmd := exec.Command("go", args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// firstDiff describes the first line where two outputs differ.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, w, g)
		}
	}
	return "equal"
}

// TestVersionGuard compiles a golden whose generated-code version the runtime does not support (one newer,
// one older): the EnforceVersion constants must stop the build.
func TestVersionGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not compiling")
	}
	code, err := os.ReadFile("testdata/golden/union/union_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	specData, err := os.ReadFile("testdata/golden/union/union.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{fmt.Sprint(Version + 1), fmt.Sprint(Version - 1)} {
		t.Run("version "+version, func(t *testing.T) {
			// Inside testdata: a package of the module that ./... patterns do not reach.
			dir, err := os.MkdirTemp("testdata", "guard")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			old := fmt.Sprintf("const genVersion = %d\n", Version)
			if !bytes.Contains(code, []byte(old)) {
				t.Fatalf("the golden has no %q", old)
			}
			changed := bytes.Replace(code, []byte(old), []byte("const genVersion = "+version+"\n"), 1)
			if err := os.WriteFile(filepath.Join(dir, "union_gen.go"), changed, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "union.yaml"), specData, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("go", "build", "./"+filepath.ToSlash(dir)).CombinedOutput()
			if err == nil {
				t.Fatal("a generated package of an unsupported version compiled")
			}
			if !strings.Contains(string(out), "EnforceVersion") || !strings.Contains(string(out), "overflows") {
				t.Errorf("the build failed for another reason:\n%s", out)
			}
		})
	}
}
