package agentrail_test

// Behaviour of the agentrail spec on the shared runtime. Every expected value is written from upstream's
// contract (agentrail packages/capabilities/src/tools/bash.ts and ../../shared/upstream-facts.md), never
// captured from our own output.

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
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

const limit = 1 << 20 // MAX_OUTPUT_BYTES, per stream

const marker = "\n[output truncated]"

func content(text string) []any { return []any{obj{{"type", "text"}, {"text", text}}} }

// fg is upstream's foreground return value.
func fg(stdout, stderr string, code int) obj {
	var parts []string
	if stdout != "" {
		parts = append(parts, stdout)
	}
	if stderr != "" {
		parts = append(parts, "[stderr]\n"+stderr)
	}
	if len(parts) == 0 {
		parts = append(parts, "(no output)")
	}
	parts = append(parts, fmt.Sprintf("\n[exit code: %d]", code))
	return obj{
		{"content", content(strings.Join(parts, "\n"))},
		{"details", obj{{"mode", "foreground"}, {"exit_code", code}, {"stdout", stdout}, {"stderr", stderr}}},
	}
}

// bg is upstream's background return value.
func bg(pid int, stdout, stderr string) obj {
	parts := []string{fmt.Sprintf("Process is running in background (pid: %d)", pid)}
	if stdout != "" {
		parts = append(parts, stdout)
	}
	if stderr != "" {
		parts = append(parts, "[stderr]\n"+stderr)
	}
	return obj{
		{"content", content(strings.Join(parts, "\n"))},
		{"details", obj{{"mode", "background"}, {"pid", pid}, {"stdout", stdout}, {"stderr", stderr}}},
	}
}

// background checks a background result: the pid is the running shell's, and Close ends it.
func background(stdout, stderr string) func(*testing.T, *runtime.Engine, *workspace, json.RawMessage) {
	return func(t *testing.T, eng *runtime.Engine, w *workspace, got json.RawMessage) {
		var r struct {
			Details struct {
				Pid int `json:"pid"`
			} `json:"details"`
		}
		if err := json.Unmarshal(got, &r); err != nil || r.Details.Pid <= 0 {
			t.Fatalf("no pid in %s (%v)", short(string(got)), err)
		}
		pid := r.Details.Pid
		compare(t, got, bg(pid, stdout, stderr))
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("background shell %d is not running: %v", pid, err)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("background shell %d survives Close (kill 0: %v)", pid, err)
		}
	}
}

var invalid = &runtime.ToolError{Type: "ToolValidationError", Message: `Invalid arguments for tool "Bash"`}

func TestBehavior(t *testing.T) {
	a := strings.Repeat
	cases := []tcase{
		{name: "stdout only", params: cmd("echo hi"), want: fixed(fg("hi\n", "", 0))},
		{name: "stderr only", params: cmd("echo oops >&2"), want: fixed(fg("", "oops\n", 0))},
		{name: "both", params: cmd("echo out; echo err >&2"), want: fixed(fg("out\n", "err\n", 0))},
		{name: "non-zero exit", params: cmd("echo x; exit 3"), want: fixed(fg("x\n", "", 3))},
		{name: "empty output", params: cmd("true"), want: fixed(fg("", "", 0))},
		{name: "signal reports 0", params: cmd("kill -9 $$"), want: fixed(fg("", "", 0))},
		{name: "stdin is closed", params: cmd("cat"), want: fixed(fg("", "", 0)), maxTime: 5 * time.Second},
		{name: "unicode", params: cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), want: fixed(fg("héllo € 😀\n", "", 0))},
		{name: "invalid UTF-8", params: cmd(`printf '\377\376'`), want: fixed(fg("\uFFFD\uFFFD", "", 0))},
		{name: "truncated 3-byte sequence", params: cmd(`printf 'ab\342\202'`), want: fixed(fg("ab\uFFFD", "", 0))},
		{name: "maximal subparts", params: cmd(`printf 'a\355\240\200b\342\202z'`), want: fixed(fg("a\uFFFD\uFFFD\uFFFDb\uFFFDz", "", 0))},
		{name: "CRLF and lone CR are kept", params: cmd(`printf 'a\r\nb\rc\n'`), want: fixed(fg("a\r\nb\rc\n", "", 0))},
		{name: "limit-1", params: cmd(fill(limit - 1)), want: fixed(fg(a("a", limit-1), "", 0))},
		{name: "limit", params: cmd(fill(limit)), want: fixed(fg(a("a", limit), "", 0))},
		{name: "limit+1", params: cmd(fill(limit + 1)), want: fixed(fg(a("a", limit)+marker, "", 0))},
		{name: "limit+1 on stderr", params: cmd(fill(limit+1) + " >&2"), want: fixed(fg("", a("a", limit)+marker, 0))},
		{
			// "€" is E2 82 AC: the cut keeps E2, which decodes to U+FFFD.
			name:   "multibyte character split at the limit",
			params: cmd(fill(limit-1) + `; printf '\342\202\254'`),
			want:   fixed(fg(a("a", limit-1)+"\uFFFD"+marker, "", 0)),
		},
		{
			name:    "timeout moves the process to the background with partial output",
			params:  cmdWith("echo partial; echo e >&2; sleep 30", "timeout", 1000),
			check:   background("partial\n", "e\n"),
			maxTime: 3 * time.Second,
		},
		{name: "zero timeout backgrounds at once", params: cmdWith("echo hi; sleep 30", "timeout", 0), check: background("", ""), maxTime: 2 * time.Second},
		{name: "negative timeout", params: cmdWith("echo hi", "timeout", -1), err: invalid},
		{name: "fractional timeout", params: cmdWith("echo hi", "timeout", 1.5), err: invalid},
		{name: "string timeout", params: cmdWith("echo hi", "timeout", "5"), err: invalid},
		{name: "large timeout", params: cmdWith("echo hi", "timeout", 100000000), want: fixed(fg("hi\n", "", 0))},
		{
			name:   "working_directory relative",
			params: cmdWith("pwd -P", "working_directory", "sub"),
			want:   func(w *workspace) any { return fg(w.real+"/sub\n", "", 0) },
		},
		{
			name: "working_directory absolute",
			params: func(w *workspace) map[string]any {
				return p("pwd -P", "working_directory", filepath.Join(w.dir, "sub"))
			},
			want: func(w *workspace) any { return fg(w.real+"/sub\n", "", 0) },
		},
		{name: "working_directory outside is not confined", params: cmdWith("pwd -P", "working_directory", "/"), want: fixed(fg("/\n", "", 0))},
		{
			name:   "working_directory symlink escaping is not confined",
			params: cmdWith("pwd -P", "working_directory", "escape"),
			want:   func(w *workspace) any { return fg(w.outside+"\n", "", 0) },
		},
		{
			name:   "working_directory empty is the default",
			params: cmdWith("pwd -P", "working_directory", ""),
			want:   func(w *workspace) any { return fg(w.real+"\n", "", 0) },
		},
		{name: "working_directory missing", params: cmdWith("pwd", "working_directory", "nope"), want: fixed(fg("", "spawn /bin/sh ENOENT", 1))},
		{
			name:   "working_directory is a regular file",
			params: cmdWith("pwd", "working_directory", "file"),
			err:    &runtime.ToolError{Type: "Error", Message: "spawn ENOTDIR"},
			gap:    "spawn_error has one shape; upstream throws here (see the spec's deviations)",
		},
		{name: "missing command", params: func(*workspace) map[string]any { return map[string]any{} }, err: invalid},
		{name: "command of another type", params: func(*workspace) map[string]any { return map[string]any{"command": 5} }, err: invalid},
		{name: "empty command", params: cmd(""), want: fixed(fg("", "", 0))},
		{
			name:   "shell missing",
			params: cmd("echo hi"),
			opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			want:   fixed(fg("", "spawn /nonexistent/sh ENOENT", 1)),
		},
	}
	run(t, "agentrail", "Bash", cases)
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
