package toolregistry_test

// Behaviour of the toolregistry spec on the shared runtime. Every expected value is written from upstream's
// contract (toolregistry-hub src/toolregistry_hub/bash_tool.py and ../../shared/upstream-facts.md), never
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
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

const limit = 65536 // _MAX_OUTPUT_BYTES, per stream

func result(stdout, stderr string, code int) obj {
	return obj{{"stdout", stdout}, {"stderr", stderr}, {"exit_code", code}, {"timed_out", false}}
}

// timedOut is upstream's timeout result: TimeoutExpired carries bytes (never str), so the output is lost.
var timedOut = obj{{"stdout", ""}, {"stderr", ""}, {"exit_code", -1}, {"timed_out", true}}

const marker = "\n... [output truncated]"

func TestBehavior(t *testing.T) {
	a := strings.Repeat
	decodeErr := func(msg string) *runtime.ToolError {
		return &runtime.ToolError{Type: "UnicodeDecodeError", Message: msg}
	}
	notFound := func(cwd string) *runtime.ToolError {
		return &runtime.ToolError{Type: "FileNotFoundError", Message: "Working directory does not exist: " + cwd}
	}
	cases := []tcase{
		{name: "stdout only", params: cmd("echo hi"), want: fixed(result("hi\n", "", 0))},
		{name: "stderr only", params: cmd("echo oops >&2"), want: fixed(result("", "oops\n", 0))},
		{name: "both", params: cmd("echo out; echo err >&2"), want: fixed(result("out\n", "err\n", 0))},
		{name: "non-zero exit", params: cmd("echo x; exit 3"), want: fixed(result("x\n", "", 3))},
		{name: "empty output", params: cmd("true"), want: fixed(result("", "", 0))},
		{name: "signal", params: cmd("kill -9 $$"), want: fixed(result("", "", -9))},
		{name: "stdin is closed", params: cmd("cat"), want: fixed(result("", "", 0)), maxTime: 5 * time.Second},
		{name: "unicode", params: cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), want: fixed(result("héllo € 😀\n", "", 0))},
		{name: "invalid UTF-8", params: cmd(`printf '\377\376'`), err: decodeErr("'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")},
		{name: "truncated 3-byte sequence", params: cmd(`printf 'ab\342\202'`), err: decodeErr("'utf-8' codec can't decode bytes in position 2-3: unexpected end of data")},
		{name: "CRLF and lone CR", params: cmd(`printf 'a\r\nb\rc\n'; printf 'e\r' >&2`), want: fixed(result("a\nb\nc\n", "e\n", 0))},
		{name: "limit-1", params: cmd(fill(limit - 1)), want: fixed(result(a("a", limit-1), "", 0))},
		{name: "limit", params: cmd(fill(limit)), want: fixed(result(a("a", limit), "", 0))},
		{name: "limit+1", params: cmd(fill(limit + 1)), want: fixed(result(a("a", limit)+marker, "", 0))},
		{name: "limit+1 on both streams", params: cmd(fill(limit+1) + "; " + fill(limit+1) + " >&2"), want: fixed(result(a("a", limit)+marker, a("a", limit)+marker, 0))},
		{
			// "€" is E2 82 AC: the cut keeps E2, decoded with errors="ignore" (dropped).
			name:   "multibyte character split at the limit",
			params: cmd(fill(limit-1) + `; printf '\342\202\254'`),
			want:   fixed(result(a("a", limit-1)+marker, "", 0)),
		},
		{name: "timeout with partial output", params: cmdWith("echo partial; sleep 5", "timeout", 1), want: fixed(timedOut), maxTime: 3 * time.Second},
		{name: "zero timeout expires at once", params: cmdWith("echo hi", "timeout", 0), want: fixed(timedOut), maxTime: 2 * time.Second},
		{name: "negative timeout expires at once", params: cmdWith("echo hi", "timeout", -5), want: fixed(timedOut), maxTime: 2 * time.Second},
		{name: "null timeout means none", params: cmdWith("echo hi", "timeout", nil), want: fixed(result("hi\n", "", 0))},
		{name: "large timeout", params: cmdWith("echo hi", "timeout", 100000), want: fixed(result("hi\n", "", 0))},
		{
			name:   "cwd relative",
			params: cmdWith("pwd -P", "cwd", "sub"),
			want:   func(w *workspace) any { return result(w.real+"/sub\n", "", 0) },
		},
		{
			name:   "cwd absolute",
			params: func(w *workspace) map[string]any { return p("pwd -P", "cwd", filepath.Join(w.dir, "sub")) },
			want:   func(w *workspace) any { return result(w.real+"/sub\n", "", 0) },
		},
		{name: "cwd outside is not confined", params: cmdWith("pwd -P", "cwd", "/"), want: fixed(result("/\n", "", 0))},
		{
			name:   "cwd symlink escaping is not confined",
			params: cmdWith("pwd -P", "cwd", "escape"),
			want:   func(w *workspace) any { return result(w.outside+"\n", "", 0) },
		},
		{name: "cwd null is the default", params: cmdWith("pwd -P", "cwd", nil), want: func(w *workspace) any { return result(w.real+"\n", "", 0) }},
		{name: "cwd missing", params: cmdWith("pwd", "cwd", "nope"), err: notFound("nope")},
		{name: "cwd is a regular file", params: cmdWith("pwd", "cwd", "file"), err: notFound("file")},
		{
			name:   "cwd empty",
			params: cmdWith("pwd", "cwd", ""),
			err:    &runtime.ToolError{Type: "FileNotFoundError", Message: "[Errno 2] No such file or directory: ''"},
			gap:    `cwd "" passes is_dir() upstream and fails in Popen; the runtime runs in the workspace (see the spec's deviations)`,
		},
		{
			name:   "missing command",
			params: func(*workspace) map[string]any { return map[string]any{} },
			err:    &runtime.ToolError{Type: "TypeError", Message: "BashTool.execute() missing 1 required positional argument: 'command'"},
		},
		{name: "empty command", params: cmd(""), want: fixed(result("", "", 0))},
		{
			name:   "shell missing",
			params: cmd("echo hi"),
			opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			err:    &runtime.ToolError{Type: "FileNotFoundError", Message: "[Errno 2] No such file or directory: '/nonexistent/sh'"},
		},
	}
	run(t, "toolregistry", "bash", cases)
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
