package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// FuzzParse: any bytes give a spec or an error every line of which names the file and a position, never a
// panic; aliases and templates are among the seeds, so their bounds are fuzzed too.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/good/*.yaml", "testdata/bad/*.yaml", "../variants/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("x: &a [*a]\n"))
	f.Add([]byte(aliasBomb(4)))
	f.Add([]byte("base: &b {unit: s, default: 1, expiry: kill}\nother: *b\n"))
	f.Add([]byte(hostileTool(`{{range $k, $v := .Params}}{{$k}}{{end}}`, `{unit: bytes, limit: 10, keep: head, marker: x}`, `{unit: s, default: 1, expiry: kill}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := spec.Parse("fuzz.yaml", data)
		if err == nil && v == nil {
			t.Fatal("no spec and no error")
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml:") {
					t.Fatalf("error line does not name the file: %q", line)
				}
			}
		}
	})
}

// FuzzTemplate: any template text either fails to compile or runs on sample data within its budget, never
// a panic or a loop without end.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{`{{.Stdout}}`, `{{range $k, $v := .Params}}{{$k}}{{end}}`, `{{printf "%5d" .ExitCode}}`,
		`{{range 5}}x{{end}}`, `{{with .Params}}{{range .}}{{.}}{{end}}{{end}}`, `{{json .Params}}{{pynum .Timeout}}`} {
		f.Add(s)
	}
	data := spec.Data{Tool: "bash", Params: map[string]any{"command": "echo hi", "list": []any{"a", "b"}}, Command: "echo hi", Stdout: "o"}
	f.Fuzz(func(t *testing.T, text string) {
		tmpl, err := spec.ParseTemplate("fuzz", text)
		if err != nil {
			return
		}
		_, _ = spec.Execute(tmpl, data)
	})
}
