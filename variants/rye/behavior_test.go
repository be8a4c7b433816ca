package rye_test

// Behaviour of the rye spec on the shared runtime. Every expected value is written from upstream's contract
// (rye-os rye/bash/bash.py and ../../shared/upstream-facts.md), never captured from our own output.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

const limit = 51200 // MAX_OUTPUT_BYTES, per stream

// result is upstream's success/non-zero envelope: output joins the non-empty parts with "\n".
func result(stdout, stderr string, code int, truncated bool) obj {
	var parts []string
	if stdout != "" {
		parts = append(parts, stdout)
	}
	if stderr != "" {
		parts = append(parts, "[stderr]\n"+stderr)
	}
	return obj{
		{"success", code == 0},
		{"output", strings.Join(parts, "\n")},
		{"stdout", stdout},
		{"stderr", stderr},
		{"exit_code", code},
		{"truncated", truncated},
	}
}

func failure(msg string) obj { return obj{{"success", false}, {"error", msg}} }

func timedOut(timeout any) obj {
	return obj{{"success", false}, {"error", fmt.Sprintf("Command timed out after %v seconds", timeout)}, {"timeout", timeout}}
}

func cut(text string, total int) string {
	return text + fmt.Sprintf("\n... [output truncated, %d bytes total]", total)
}

func TestBehavior(t *testing.T) {
	a := strings.Repeat
	cases := []tcase{
		{name: "stdout only", params: cmd("echo hi"), want: fixed(result("hi\n", "", 0, false))},
		{name: "stderr only", params: cmd("echo oops >&2"), want: fixed(result("", "oops\n", 0, false))},
		{name: "both", params: cmd("echo out; echo err >&2"), want: fixed(result("out\n", "err\n", 0, false))},
		{name: "non-zero exit", params: cmd("echo x; echo y >&2; exit 3"), want: fixed(result("x\n", "y\n", 3, false))},
		{name: "empty output", params: cmd("true"), want: fixed(result("", "", 0, false))},
		{name: "signal", params: cmd("kill -9 $$"), want: fixed(result("", "", -9, false))},
		{name: "stdin is closed", params: cmd("cat"), want: fixed(result("", "", 0, false)), maxTime: 5 * time.Second},
		{name: "unicode", params: cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), want: fixed(result("héllo € 😀\n", "", 0, false))},
		{
			name:   "invalid UTF-8",
			params: cmd(`printf '\377\376'`),
			want:   fixed(failure("'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")),
		},
		{
			name:   "truncated 3-byte sequence",
			params: cmd(`printf 'ab\342\202'`),
			want:   fixed(failure("'utf-8' codec can't decode bytes in position 2-3: unexpected end of data")),
		},
		{
			name:   "invalid UTF-8 in stderr only",
			params: cmd(`echo fine; printf 'x\377' >&2`),
			want:   fixed(failure("'utf-8' codec can't decode byte 0xff in position 1: invalid start byte")),
		},
		{name: "CRLF and lone CR", params: cmd(`printf 'a\r\nb\rc\n'; printf 'e\r\n' >&2`), want: fixed(result("a\nb\nc\n", "e\n", 0, false))},
		{name: "limit-1", params: cmd(fill(limit - 1)), want: fixed(result(a("a", limit-1), "", 0, false))},
		{name: "limit", params: cmd(fill(limit)), want: fixed(result(a("a", limit), "", 0, false))},
		{name: "limit+1", params: cmd(fill(limit + 1)), want: fixed(result(cut(a("a", limit), limit+1), "", 0, true))},
		{
			name:   "limit+1 on stderr",
			params: cmd(fill(limit+1) + " >&2"),
			want:   fixed(result("", cut(a("a", limit), limit+1), 0, true)),
		},
		{
			// CRLF becomes LF before the byte count: 51,201 raw bytes are 51,200 text bytes.
			name:   "universal newlines before the limit",
			params: cmd(fill(limit-1) + `; printf '\r\n'`),
			want:   fixed(result(a("a", limit-1)+"\n", "", 0, false)),
		},
		{
			// "€" is E2 82 AC: the cut keeps E2, decoded with errors="replace".
			name:   "multibyte character split at the limit",
			params: cmd(fill(limit-1) + `; printf '\342\202\254'`),
			want:   fixed(result(cut(a("a", limit-1)+"\uFFFD", limit+2), "", 0, true)),
		},
		{
			name:    "timeout with partial output",
			params:  cmdWith("echo partial; sleep 5", "timeout", 1),
			want:    fixed(timedOut(1)),
			maxTime: 3 * time.Second,
		},
		{name: "zero timeout expires at once", params: cmdWith("echo hi", "timeout", 0), want: fixed(timedOut(0)), maxTime: 2 * time.Second},
		{name: "negative timeout expires at once", params: cmdWith("echo hi", "timeout", -1), want: fixed(timedOut(-1)), maxTime: 2 * time.Second},
		{name: "null timeout means none", params: cmdWith("echo hi", "timeout", nil), want: fixed(result("hi\n", "", 0, false))},
		{name: "large timeout", params: cmdWith("echo hi", "timeout", 100000), want: fixed(result("hi\n", "", 0, false))},
		{
			name:   "working_dir relative",
			params: func(w *workspace) map[string]any { return p("pwd -P", "working_dir", "sub") },
			want:   func(w *workspace) any { return result(w.real+"/sub\n", "", 0, false) },
		},
		{
			name:   "working_dir absolute",
			params: func(w *workspace) map[string]any { return p("pwd -P", "working_dir", filepath.Join(w.dir, "sub")) },
			want:   func(w *workspace) any { return result(w.real+"/sub\n", "", 0, false) },
		},
		{
			name:   "working_dir empty is the project root",
			params: func(w *workspace) map[string]any { return p("pwd -P", "working_dir", "") },
			want:   func(w *workspace) any { return result(w.real+"\n", "", 0, false) },
		},
		{name: "working_dir outside (..)", params: cmdWith("pwd", "working_dir", ".."), want: fixed(failure("Working directory is outside the project workspace"))},
		{name: "working_dir outside (absolute)", params: cmdWith("pwd", "working_dir", "/"), want: fixed(failure("Working directory is outside the project workspace"))},
		{name: "working_dir symlink escaping", params: cmdWith("pwd", "working_dir", "escape"), want: fixed(failure("Working directory is outside the project workspace"))},
		{
			// Containment is checked before existence.
			name:   "working_dir missing outside",
			params: cmdWith("pwd", "working_dir", "../no-such-dir"),
			want:   fixed(failure("Working directory is outside the project workspace")),
		},
		{
			name:   "working_dir missing",
			params: cmdWith("pwd", "working_dir", "nope"),
			want:   func(w *workspace) any { return failure("Working directory not found: " + w.real + "/nope") },
		},
		{
			name:   "working_dir is a regular file",
			params: cmdWith("pwd", "working_dir", "file"),
			want:   func(w *workspace) any { return failure("[Errno 20] Not a directory: '" + w.real + "/file'") },
		},
		{
			// The project path is resolve()d: messages and the cwd name the real directory.
			name:   "workspace given through a symlink",
			linked: true,
			params: cmdWith("pwd -P", "working_dir", "sub"),
			want:   func(w *workspace) any { return result(w.real+"/sub\n", "", 0, false) },
		},
		{
			name:   "workspace given through a symlink, working_dir missing",
			linked: true,
			params: cmdWith("pwd", "working_dir", "nope"),
			want:   func(w *workspace) any { return failure("Working directory not found: " + w.real + "/nope") },
		},
		{
			name:   "workspace given through a symlink, absolute working_dir through the link",
			linked: true,
			params: func(w *workspace) map[string]any { return p("pwd -P", "working_dir", w.dir+"/sub") },
			want:   func(w *workspace) any { return result(w.real+"/sub\n", "", 0, false) },
		},
		{name: "missing command", params: func(*workspace) map[string]any { return map[string]any{} }, err: &runtime.ToolError{Type: "KeyError", Message: "'command'"}},
		{name: "empty command", params: cmd(""), want: fixed(result("", "", 0, false))},
		{
			name:   "shell missing",
			params: cmd("echo hi"),
			opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			want:   fixed(failure("[Errno 2] No such file or directory: '/nonexistent/sh'")),
		},
	}
	run(t, "rye", "bash", cases)
}

// fill prints n times "a".
func fill(n int) string { return fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a`, n) }

// ---- helpers (each variant's behavior_test.go carries its own copy) ----

// obj is a JSON object whose fields keep their order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.k)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// workspace is one case's workspace: sub/ (a directory), file (a regular file) and escape (a symlink to a
// directory outside).
type workspace struct {
	dir     string // as given to the engine
	real    string // dir with symlinks resolved
	outside string // the directory escape points to, resolved
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	w := &workspace{dir: t.TempDir()}
	var err error
	if w.real, err = filepath.EvalSymlinks(w.dir); err != nil {
		t.Fatal(err)
	}
	if w.outside, err = filepath.EvalSymlinks(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Mkdir(filepath.Join(w.dir, "sub"), 0o755),
		os.WriteFile(filepath.Join(w.dir, "file"), []byte("x"), 0o644),
		os.Symlink(w.outside, filepath.Join(w.dir, "escape")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return w
}

type tcase struct {
	name    string
	params  func(w *workspace) map[string]any
	want    func(w *workspace) any // an obj (JSON result) or a string (text result)
	err     *runtime.ToolError     // a raised error instead of a result
	errType string                 // only the error type is part of the contract
	maxTime time.Duration          // the call must return within this
	gap     string                 // a known gap in the spec language: the case documents upstream and is skipped
	linked  bool                   // the engine gets the workspace through a symlink (w.dir is the link)
	opts    []runtime.Option
	// check replaces want for results with parts no contract can fix in advance (pids, shell ids); eng is
	// the engine of the call, for follow-up calls.
	check func(t *testing.T, eng *runtime.Engine, w *workspace, got json.RawMessage)
}

func p(command string, kvs ...any) map[string]any {
	m := map[string]any{"command": command}
	for i := 0; i+1 < len(kvs); i += 2 {
		m[kvs[i].(string)] = kvs[i+1]
	}
	return m
}

func cmd(command string) func(*workspace) map[string]any {
	return func(*workspace) map[string]any { return p(command) }
}

func cmdWith(command string, kvs ...any) func(*workspace) map[string]any {
	return func(*workspace) map[string]any { return p(command, kvs...) }
}

func fixed(v any) func(*workspace) any { return func(*workspace) any { return v } }

func run(t *testing.T, id, tool string, cases []tcase) {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.gap != "" {
				t.Skip("known gap: " + tc.gap)
			}
			w := newWorkspace(t)
			if tc.linked {
				link := filepath.Join(t.TempDir(), "link")
				if err := os.Symlink(w.dir, link); err != nil {
					t.Fatal(err)
				}
				w.dir = link
			}
			eng, err := runtime.New(v, append([]runtime.Option{runtime.WithWorkspace(w.dir)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			params, err := json.Marshal(tc.params(w))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			res, err := eng.Call(ctx, tool, params)
			elapsed := time.Since(start)
			if tc.maxTime > 0 && elapsed > tc.maxTime {
				t.Errorf("call took %v, want at most %v", elapsed, tc.maxTime)
			}
			if tc.err != nil || tc.errType != "" {
				var te *runtime.ToolError
				if !errors.As(err, &te) {
					t.Fatalf("want a raised error, got result %s, err %v", short(string(res)), err)
				}
				if tc.errType != "" && te.Type != tc.errType {
					t.Errorf("error type %q, want %q (message %q)", te.Type, tc.errType, te.Message)
				}
				if tc.err != nil && (te.Type != tc.err.Type || te.Message != tc.err.Message) {
					t.Errorf("error\n got %s: %q\nwant %s: %q", te.Type, te.Message, tc.err.Type, tc.err.Message)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if tc.check != nil {
				tc.check(t, eng, w, res)
				return
			}
			compare(t, res, tc.want(w))
		})
	}
}

// compare checks a result against the contract: a text exactly, an object token by token (field order
// included).
func compare(t *testing.T, got json.RawMessage, want any) {
	t.Helper()
	if s, ok := want.(string); ok {
		var text string
		if err := json.Unmarshal(got, &text); err != nil {
			t.Fatalf("result is not a JSON string: %s", short(string(got)))
		}
		if text != s {
			t.Errorf("text differs at byte %d\n got %s\nwant %s", firstDiff(text, s), short(strconvQuote(text)), short(strconvQuote(s)))
		}
		return
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	g, w := tokens(t, got), tokens(t, wantJSON)
	for i := 0; i < len(g) || i < len(w); i++ {
		if i >= len(g) || i >= len(w) || !reflect.DeepEqual(g[i], w[i]) {
			t.Errorf("result differs at token %d\n got %s\nwant %s", i, short(string(got)), short(string(wantJSON)))
			return
		}
	}
}

func tokens(t *testing.T, data []byte) []any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out []any
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("invalid JSON %s: %v", short(string(data)), err)
		}
		out = append(out, tok)
	}
}

func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// short keeps long texts readable in failures.
func short(s string) string {
	if len(s) <= 400 {
		return s
	}
	return fmt.Sprintf("%s ...(%d bytes)... %s", s[:200], len(s)-400, s[len(s)-200:])
}
