package validate_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// TestParseValidates: with the package imported, Parse checks the JSON Schema (a number where the schema
// wants an array is its error, with its position).
func TestParseValidates(t *testing.T) {
	good, err := os.ReadFile("../testdata/good/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Parse("minimal.yaml", good); err != nil {
		t.Fatalf("a good spec: %v", err)
	}
	bad := strings.Replace(string(good), "argv: [/bin/sh, -c]", "argv: 3", 1)
	if _, err := spec.Parse("bad.yaml", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "bad.yaml:6:9: shell.argv: got number, want array") {
		t.Fatalf("a spec the schema refuses: %v", err)
	}
}

// TestNotLinkedByTheRuntime: the runtime, the built-in variants and their generated adapters (every
// package below runtime/ and variants/ but their commands, which generate code) do not link the
// validator, so a program built on them does not run its package init, nor the schema reflector, which
// only go generate uses (spec/internal/schemagen).
func TestNotLinkedByTheRuntime(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-f", `{{if ne .Name "main"}}{{.ImportPath}}{{end}}`,
		"github.com/agentbash/agentbash/runtime/...", "github.com/agentbash/agentbash/variants/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	libs := strings.Fields(string(out))
	if len(libs) < 20 {
		t.Fatalf("go list found %d packages: %q", len(libs), libs)
	}
	out, err = exec.Command("go", append([]string{"list", "-deps"}, libs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/santhosh-tekuri/jsonschema") || p == spec.ValidatePackage ||
			strings.HasPrefix(p, "github.com/invopop/jsonschema") {
			t.Errorf("the runtime or a built-in variant imports %s", p)
		}
	}
}
