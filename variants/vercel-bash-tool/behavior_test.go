package vercelbashtool_test

// Behaviour of the vercel-bash-tool spec on the shared runtime. Every expected value is written from the
// package's code (npm bash-tool 1.3.19, dist/tools/bash.js and dist/sandbox/vercel.js), never captured from
// our own output; oracle_test.go runs the same cases through that package.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/vercel-bash-tool"
)

// result is the tool's answer: {stdout, stderr, exitCode}, each stream cut as truncateOutput cuts it.
func result(stdout, stderr string, code int) string {
	b, _ := json.Marshal(struct {
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		ExitCode int    `json:"exitCode"`
	}{cut(stdout, "stdout"), cut(stderr, "stderr"), code})
	return string(b)
}

// cut is truncateOutput(output, 30000, name) for text in the Basic Multilingual Plane (where a UTF-16 code
// unit is a code point).
func cut(s, name string) string {
	r := []rune(s)
	if len(r) <= 30000 {
		return s
	}
	return string(r[:30000]) + fmt.Sprintf("\n\n[%s truncated: %d characters removed]", name, len(r)-30000)
}

// tcase is a command and the answer; the workspace is written /ws and holds a directory src.
type tcase struct {
	name, command, want string
}

var cases = []tcase{
	{"stdout", "echo hi", result("hi\n", "", 0)},
	{"stderr and status", "echo out; echo err >&2; exit 3", result("out\n", "err\n", 3)},
	{"runs in the working directory", "pwd", result("/ws\n", "", 0)},
	{"cd inside the command", "cd src && pwd", result("/ws/src\n", "", 0)},
	{"the command is pasted after the cd", "false || echo fallback", result("fallback\n", "", 0)},
	{"a list after the cd", "true; echo second", result("second\n", "", 0)},
	{"a comment", "echo a # comment", result("a\n", "", 0)},
	{"empty command", "", result("", "bash: -c: line 2: syntax error: unexpected end of file\n", 2)},
	{"syntax error", "echo (", result("", "bash: -c: line 1: syntax error near unexpected token `newline'\nbash: -c: line 1: `cd \"/ws\" && echo ('\n", 2)},
	{"stdin is closed", "cat; echo done", result("done\n", "", 0)},
	{"exactly the limit", "head -c 30000 /dev/zero | tr '\\0' a", result(strings.Repeat("a", 30000), "", 0)},
	{"stdout over the limit", "head -c 30005 /dev/zero | tr '\\0' a", result(strings.Repeat("a", 30005), "", 0)},
	{"stderr over the limit", "head -c 40000 /dev/zero | tr '\\0' b >&2; echo x", result("x\n", strings.Repeat("b", 40000), 0)},
	{"both over the limit", "seq 1 20000; seq 1 20000 >&2", result(seq(20000), seq(20000), 0)},
	{"multibyte characters count once", "for i in $(seq 30002); do printf 'é'; done", result(strings.Repeat("é", 30002), "", 0)},
	{"invalid UTF-8 is replaced", "printf 'a\\377b\\300'", result("a\uFFFDb\uFFFD", "", 0)},
}

// deviations are the cases the package answers otherwise, each listed in the spec's deviations: what the
// runtime answers, and what the package does (oracle_test.go checks that it still does).
var deviations = []struct {
	tcase
	upstream string
}{
	// The package waits until every holder of the pipes closes them (forever for a server left running);
	// the runtime kills the process group when the shell exits.
	{tcase{"a background child holding stdout", "(sleep 1; echo late) & echo now", result("now\n", "", 0)}, result("now\nlate\n", "", 0)},
	// output.length counts UTF-16 code units: an astral character counts twice.
	{tcase{"characters outside the BMP", "for i in $(seq 20000); do printf '\360\237\230\200'; done", result(strings.Repeat("😀", 20000), "", 0)},
		`{"stdout":"` + strings.Repeat("😀", 15000) + `\n\n[stdout truncated: 10000 characters removed]","stderr":"","exitCode":0}`},
}

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// realDir is a workspace with its symlinks resolved (bash's pwd reports the real path) holding src.
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := mkdirs(filepath.Join(d, "src")); err != nil {
		t.Fatal(err)
	}
	return d
}

func call(t *testing.T, tool *vercelbashtool.Tool, command string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]string{"command": command})
	res, err := tool.Call(ctx, params)
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	return string(res)
}

func TestBehavior(t *testing.T) {
	ws := realDir(t)
	tool, err := vercelbashtool.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	all := cases
	for _, d := range deviations {
		all = append(all, d.tcase)
	}
	for _, c := range all {
		t.Run(c.name, func(t *testing.T) {
			got := strings.ReplaceAll(call(t, tool, c.command), ws, "/ws")
			if !sameJSON(got, c.want) {
				t.Fatalf("%q:\n got %.400s\nwant %.400s", c.command, got, c.want)
			}
		})
	}
}

// The AI SDK checks the input against {command: z.string()} before the tool runs.
func TestInvalidInput(t *testing.T) {
	tool, err := vercelbashtool.New(runtime.WithWorkspace(realDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	for _, params := range []string{`{}`, `{"command": 1}`, `{"command": null}`} {
		if res, err := tool.Call(t.Context(), json.RawMessage(params)); err == nil {
			t.Errorf("%s: answered %s", params, res)
		}
	}
}

// sameJSON compares two JSON texts as values (Go's encoder writes & as \u0026, JavaScript's does not).
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func mkdirs(p string) error { return os.MkdirAll(p, 0o755) }
