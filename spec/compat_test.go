package spec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// spec/testdata/compat/v<N> holds specs written against version N of the spec language. Every one loads,
// with a note for each earlier form it uses (listed in its "# notes: " line) and none in the current
// version: changing the language so that one of them no longer loads is a decision (a new version, its
// conversion, and a folder), not an accident.
func TestEarlierFormsLoad(t *testing.T) {
	for v := 1; v <= spec.SpecVersion; v++ {
		files, _ := filepath.Glob(filepath.Join("testdata", "compat", "v"+strconv.Itoa(v), "*.yaml"))
		if len(files) == 0 {
			t.Errorf("no specs of spec_version %d in testdata/compat/v%d", v, v)
		}
		for _, f := range files {
			t.Run(f, func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				if _, list, ok := bytes.Cut(data, []byte("\n# notes: ")); ok {
					line, _, _ := bytes.Cut(list, []byte("\n"))
					want = strings.Split(string(line), ", ")
				}
				if v == spec.SpecVersion && len(want) > 0 {
					t.Fatal("a spec in the current version has no notes to expect")
				}
				got, err := spec.Load(f)
				if err != nil {
					t.Fatalf("does not load: %v", err)
				}
				var fields []string
				for _, n := range got.Notes() {
					fields = append(fields, n.Field)
					if n.Line == 0 || !strings.Contains(n.Msg, "spec_version "+strconv.Itoa(v)) {
						t.Errorf("note without a position or the version that had the form: %v", n)
					}
				}
				if strings.Join(fields, ", ") != strings.Join(want, ", ") {
					t.Errorf("notes on %v, want %v", fields, want)
				}
			})
		}
	}
}

// A spec in an earlier form loads as the same model as the spec its notes ask for.
func TestEarlierFormConvertsToCurrent(t *testing.T) {
	old, err := spec.Load("testdata/compat/v1/first_release.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := spec.Load("testdata/compat/v2/first_release.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.Notes()) != 0 {
		t.Errorf("notes on the current form: %v", cur.Notes())
	}
	model := func(v *spec.Variant) string {
		c := *v
		c.SpecVersion = 0
		b, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := model(old), model(cur); a != b {
		t.Errorf("the earlier form loads as\n%s\nthe current one as\n%s", a, b)
	}
	if len(old.Deviations) != 2 || old.Deviations[0].Topic != "stdin is closed (upstream inherits the host's stdin, so a command that reads stdin can hang the call)." {
		t.Errorf("deviations: %+v", old.Deviations)
	}
	if old.Tools[0].Timeout.OnNull != spec.OnNullNone {
		t.Errorf("null was not read as on_null: %+v", old.Tools[0].Timeout)
	}
}
