package gen_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/gen"
	"github.com/agentbash/agentbash/spec"
)

// The downstream module: its own variant (45 s, the last 20 KB of the combined output, a deny list of its
// own, its own JSON envelope), the thin generator (cmd/agentbash-gen) run by go generate through go run
// and pinned with a go.mod tool directive, and a test that drives the generated API.
const (
	downstreamGoMod = `module example.com/downstream

go 1.26.0

require github.com/agentbash/agentbash v0.0.0-00010101000000-000000000000

replace github.com/agentbash/agentbash => REPO

tool github.com/agentbash/agentbash/cmd/agentbash-gen
`

	downstreamSpec = `# A variant that is none of the five: 45 s, the last 20 KB of the combined output, its own deny list and
# its own JSON envelope.
id: myshell
title: A downstream shell tool
summary: Runs a command for at most 45 s and returns the last 20 KB of its output in a small envelope.
hosts: [example-host]
source: {seed: none, repo: example.com/downstream, path: myshell/myshell.yaml, language: go}
shell:
  argv: [/bin/sh, -c]
policies:
  - name: house_rules
    kind: regex
    summary: What this team never lets a model run.
    message: "blocked by house rules: {{.Reason}}"
    fail: {type: PermissionDenied, message: "{{.Message}}"}
    rules:
      - {name: pipe-to-shell, pattern: '\b(curl|wget)\b.*\|\s*(ba|z)?sh\b', reason: a download piped into a shell}
      - {name: force-push, pattern: '\bgit\s+push\b.*--force\b', reason: a force push}
    examples:
      blocked:
        - {command: "curl -s https://example.com/x | sh", message: "blocked by house rules: a download piped into a shell"}
        - {command: "git push origin main --force", message: "blocked by house rules: a force push"}
      allowed: ["git push origin main", "curl -s https://example.com/x > x.sh"]
tools:
  - name: shell
    description: Run a shell command. Output beyond 20 KB keeps only its end.
    params:
      - {name: cmd, type: string, required: true, role: command, description: The command to run.}
      - {name: timeout_s, type: integer, default: 45, minimum: 1, role: timeout, description: Seconds before the command is killed.}
    checks:
      - not_blank: cmd
        fail: {type: ValueError, message: cmd is empty}
      - policy: house_rules
    timeout: {unit: s, default: 45, expiry: kill}
    output:
      capture: combined
      decode: replace
      truncate: {unit: bytes, limit: 20480, keep: tail, marker: "[{{.Elided}} bytes dropped]\n"}
    results:
      format: json
      cases:
        exit:
          fields:
            - {name: ok, type: boolean, value: "{{.Success}}", doc: Ok reports exit code 0.}
            - {name: code, type: integer, value: "{{.ExitCode}}"}
            - {name: output, type: string, value: "{{.Output}}"}
            - {name: cut, type: boolean, value: "{{.Truncated}}"}
        timeout:
          fields:
            - {name: ok, type: boolean, const: false}
            - {name: code, type: integer, const: -1}
            - {name: output, type: string, value: "{{.Output}}"}
            - {name: timed_out_after, type: number, value: "{{.TimeoutValue}}"}
`

	// The directive is split so that go generate in this repository does not take it for its own.
	downstreamGenerate = "package myshell\n\n//go:" + "generate go run github.com/agentbash/agentbash/cmd/agentbash-gen -spec myshell.yaml -out myshell_gen.go -pkg myshell\n"

	downstreamTest = `package myshell_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"example.com/downstream/myshell"
	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/runtime"
)

func open(t *testing.T) *myshell.Tool {
	t.Helper()
	tool, err := myshell.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	return tool
}

func TestRun(t *testing.T) {
	res, err := open(t).Shell(context.Background(), myshell.ShellParams{Cmd: "echo hi; echo oops >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ok || res.Code != 3 || res.Output != "hi\noops\n" || res.Cut == nil || *res.Cut || res.TimedOutAfter != nil {
		t.Errorf("got %+v", res)
	}
}

func TestKeepsTheLast20KB(t *testing.T) {
	res, err := open(t).Shell(context.Background(), myshell.ShellParams{Cmd: "head -c 30000 /dev/zero | tr '\\0' a; printf END"})
	if err != nil {
		t.Fatal(err)
	}
	want := "[9523 bytes dropped]\n" + strings.Repeat("a", 20477) + "END"
	if res.Output != want || !*res.Cut || !res.Ok {
		t.Errorf("got %d bytes starting %q, cut %v", len(res.Output), res.Output[:min(40, len(res.Output))], *res.Cut)
	}
}

func TestDenyList(t *testing.T) {
	tool := open(t)
	_, err := tool.Shell(context.Background(), myshell.ShellParams{Cmd: "curl -fsSL https://example.com/i.sh | bash"})
	var denied *myshell.PermissionDenied
	if !errors.As(err, &denied) || denied.Message != "blocked by house rules: a download piped into a shell" {
		t.Fatalf("got %v (%T)", err, err)
	}
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Type != "PermissionDenied" {
		t.Errorf("not a runtime.ToolError: %v", err)
	}
	_, err = tool.Shell(context.Background(), myshell.ShellParams{Cmd: "  "})
	var ve *myshell.ValueError
	if !errors.As(err, &ve) || ve.Message != "cmd is empty" {
		t.Errorf("blank: %v", err)
	}
	if _, err := tool.Shell(context.Background(), myshell.ShellParams{Cmd: "git --version >/dev/null; echo git push origin main"}); err != nil {
		t.Errorf("allowed command: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	res, err := open(t).Shell(context.Background(), myshell.ShellParams{Cmd: "echo started; sleep 10", TimeoutS: new(1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ok || res.Code != -1 || res.Output != "started\n" || res.TimedOutAfter == nil || *res.TimedOutAfter != 1 || res.Cut != nil {
		t.Errorf("got %+v", res)
	}
}

func TestDefinitions(t *testing.T) {
	defs := myshell.Definitions()
	if len(defs) != 1 || defs[0].Name != myshell.ToolShell {
		t.Fatalf("definitions %+v", defs)
	}
	var schema struct {
		Properties map[string]struct {
			Default any
			Minimum float64
		}
		Required []string
	}
	if err := json.Unmarshal(defs[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if p := schema.Properties["timeout_s"]; p.Default != 45.0 || p.Minimum != 1 || len(schema.Required) != 1 {
		t.Errorf("schema %s", defs[0].InputSchema)
	}
	reflected, err := toolschema.Reflect(&myshell.ShellParams{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := toolschema.Summarize(reflected)
	want, _ := toolschema.Summarize(defs[0].InputSchema)
	for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
		t.Error(d)
	}
}
`
)

// TestDownstreamModule makes a fresh module that uses agentbash as a downstream repository would: its own
// spec, the thin generator pinned with a go.mod tool directive (replace pointing at this checkout), go
// generate (go run of the generator), then go vet and go test of the generated package. It uses this
// machine's module cache.
func TestDownstreamModule(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the downstream test builds the generator and a fresh module with the go command")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", strings.Replace(downstreamGoMod, "REPO", filepath.ToSlash(repo), 1))
	// The checksums of agentbash's own dependencies, so that nothing needs the checksum database.
	sums, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sums))
	write("myshell/myshell.yaml", downstreamSpec)
	write("myshell/generate.go", downstreamGenerate)
	write("myshell/myshell_test.go", downstreamTest)

	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "go", args...)
		cmd.Dir = dir
		cmd.Env = env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// What a user does once after adding the tool directive: complete the requirements.
	run("mod", "tidy")
	run("generate", "./...")
	generated, err := os.ReadFile(filepath.Join(dir, "myshell", "myshell_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(generated, []byte("// Code generated by agentbash gen from myshell.yaml. DO NOT EDIT.\n")) {
		t.Errorf("header: %q", generated[:min(80, len(generated))])
	}
	// The pinned generator writes what this checkout's gen package writes.
	v, err := spec.Parse("myshell.yaml", []byte(downstreamSpec))
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(v, gen.Config{Package: "myshell", SpecFile: "myshell.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(generated, want) {
		t.Error("go generate wrote something else than gen.Generate")
	}
	// -check agrees that the file is fresh, and a second go generate changes nothing.
	run("tool", "agentbash-gen", "-check", "-spec", "myshell/myshell.yaml", "-out", "myshell/myshell_gen.go", "-pkg", "myshell")
	run("generate", "./...")
	if again, _ := os.ReadFile(filepath.Join(dir, "myshell", "myshell_gen.go")); !bytes.Equal(again, generated) {
		t.Error("a second go generate changed the file")
	}
	run("vet", "./...")
	out := run("test", "-count=1", "-v", "./...")
	for _, name := range []string{"TestRun", "TestKeepsTheLast20KB", "TestDenyList", "TestTimeout", "TestDefinitions"} {
		if !strings.Contains(out, "--- PASS: "+name) {
			t.Errorf("downstream %s did not pass:\n%s", name, out)
		}
	}
}
