package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// compiledFixture is the checked-in output of Compiled for the feature specs (testdata/golden), the
// loader's good specs and testdata/compiled (values of every kind): a test file of this package, so that
// `go test` compiles it and TestCompiledFixture compares each variant it builds with spec.Load's.
const compiledFixture = "compiled_fixture_test.go"

func compiledFixtureSpecs(t *testing.T) ([]CompiledSpec, []string) {
	t.Helper()
	var files []string
	for _, pattern := range []string{"testdata/golden/*/*.yaml", "../spec/testdata/good/*.yaml", "testdata/compiled/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found %d specs", len(files))
	}
	var specs []CompiledSpec
	for _, f := range files {
		v, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, CompiledSpec{Func: v.ID + "Fixture", Variant: v})
	}
	return specs, files
}

// TestCompiledFixture: the fixture is what Compiled writes now (-update rewrites it), and every variant
// it builds is the one spec.Load reads, unexported state included, with the Go model pointing into the
// parameters.
func TestCompiledFixture(t *testing.T) {
	specs, files := compiledFixtureSpecs(t)
	got, err := Compiled(CompiledConfig{Package: "gen", Source: "TestCompiledFixture (go test ./gen -update)", Table: "compiledFixtures"}, specs)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(compiledFixture, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(compiledFixture)
	if err != nil {
		t.Fatalf("%v (run go test ./gen -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale (run go test ./gen -update): %s", compiledFixture, firstDiff(want, got))
	}
	if len(compiledFixtures) != len(files) {
		t.Fatalf("the fixture holds %d variants, want %d (run go test ./gen -update)", len(compiledFixtures), len(files))
	}
	byID := map[string]string{}
	for _, f := range files {
		v, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		byID[v.ID] = f
	}
	for _, c := range compiledFixtures {
		t.Run(c.ID, func(t *testing.T) {
			want, err := spec.Load(byID[c.ID])
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Spec()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the compiled variant differs from spec.Load of %s", byID[c.ID])
			}
			for i := range got.Tools {
				tool := &got.Tools[i]
				for j, gp := range tool.Go().ParamFields {
					if gp.Param != &tool.Params[j] {
						t.Errorf("tool %s: the Go model's parameter %d is a copy", tool.Name, j)
					}
				}
			}
		})
	}
}

// TestCompiledErrors: what a composite literal cannot hold is an error, not a silently different value.
func TestCompiledErrors(t *testing.T) {
	load := func() *spec.Variant {
		v, err := spec.Load("testdata/compiled/values.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cfg := CompiledConfig{Package: "p", Source: "test"}
	shared := load()
	shared.Tools[0].Timeout.Min = shared.Tools[0].Params[1].Minimum
	twice := load()
	for _, c := range []struct {
		name  string
		cfg   CompiledConfig
		specs []CompiledSpec
		want  string
	}{
		{"not completed", cfg, []CompiledSpec{{Func: "f", Variant: &spec.Variant{ID: "x"}}}, "not completed"},
		{"shared pointer", cfg, []CompiledSpec{{Func: "f", Variant: shared}}, "a second pointer to one value"},
		{"two of one id", cfg, []CompiledSpec{{Func: "f", Variant: twice}, {Func: "g", Variant: twice}}, `two variants "values"`},
		{"no package", CompiledConfig{}, nil, "Package is empty"},
	} {
		_, err := Compiled(c.cfg, c.specs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
