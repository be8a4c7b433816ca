package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentbash/agentbash/spec"
)

// raisedTypes finds, independently of spec.Variant.Failures, every error class a spec file names: each
// mapping with both a type and a message key is a failure (a check's fail, a raise, invalid_param, a
// working-directory rule, a decode error, a background failure), and its type is raised when set.
func raisedTypes(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var types []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			keys := map[string]string{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				keys[n.Content[i].Value] = n.Content[i+1].Value
			}
			if _, ok := keys["message"]; ok && keys["type"] != "" && !slices.Contains(types, keys["type"]) {
				types = append(types, keys["type"])
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	return types
}

// TestEveryFailureHasItsType: for every failure any spec names (the built-ins, the feature goldens and the
// good specs of spec/testdata), the generated adapter has a type that typedError returns and errors.As
// finds, which unwraps to the *runtime.ToolError; and so for the classes the runtime raises on a spec's
// behalf (ValidationError, OSError, PolicyError, ToolError) when the spec names none of its own.
func TestEveryFailureHasItsType(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not compiling")
	}
	var files []string
	for _, pattern := range []string{"../variants/*/*.yaml", "testdata/golden/*/*.yaml", "../spec/testdata/good/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	root, err := os.MkdirTemp("testdata", "errtypes")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	var pkgs []string
	for i, file := range files {
		v, err := spec.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]string{}
		for _, et := range v.ErrorTypes() {
			types[et.Name] = et.GoName
		}
		for _, name := range raisedTypes(t, file) {
			if _, ok := types[name]; !ok {
				t.Errorf("%s names the error class %s, which ErrorTypes misses", file, name)
			}
		}
		pkg := fmt.Sprintf("p%d", i)
		dir := filepath.Join(root, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		code, err := Generate(v, Config{Package: pkg, SpecFile: "spec.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		var test strings.Builder
		fmt.Fprintf(&test, "package %s\n\nimport (\n\t\"errors\"\n\t\"testing\"\n\n\t\"github.com/agentbash/agentbash/runtime\"\n)\n\n", pkg)
		fmt.Fprintf(&test, "// %s\nfunc TestErrorTypes(t *testing.T) {\n", file)
		for _, et := range v.ErrorTypes() {
			fmt.Fprintf(&test, `	{
		err := typedError(&runtime.ToolError{Type: %q, Message: "m"})
		var typed *%s
		var te *runtime.ToolError
		if !errors.As(err, &typed) || typed.Message != "m" || !errors.As(err, &te) || te.Type != %[1]q || err.Error() != %[1]q+": m" {
			t.Errorf("%[1]s: %%v (%%T)", err, err)
		}
	}
`, et.Name, et.GoName)
		}
		test.WriteString("\tif err := typedError(&runtime.ToolError{Type: \"NoSuchClass\", Message: \"m\"}); err.Error() != \"NoSuchClass: m\" {\n\t\tt.Errorf(\"unknown class: %v\", err)\n\t}\n}\n")
		for name, content := range map[string][]byte{"spec.yaml": data, pkg + "_gen.go": code, "errors_test.go": []byte(test.String())} {
			if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
	}
	out, err := exec.Command("go", append([]string{"test", "-count=1"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go test of the generated packages: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "ok  "); n != len(pkgs) {
		t.Errorf("%d of %d packages passed:\n%s", n, len(pkgs), out)
	}
}
