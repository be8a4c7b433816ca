// Package behavior is the shared harness of the variants' behaviour tests (variants/<id>/behavior_test.go):
// a fresh workspace per case, the table of cases each test declares, and the runner that calls the
// variant's tool through the shared runtime and compares the result with the contract written from
// upstream.
//
// It is an ordinary package rather than a _test file so that the variants' test packages can import it;
// being internal, nothing outside variants/ can.
package behavior

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
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

// CallBound bounds every call and wait of the variants' tests: a test that waits for a process fails after
// it rather than hanging.
const CallBound = 30 * time.Second

// Bounded returns a context that ends with the test or after CallBound.
func Bounded(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), CallBound)
	t.Cleanup(cancel)
	return ctx
}

// Fill prints n times "a".
func Fill(n int) string { return fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a`, n) }

// Obj is a JSON object whose fields keep their order.
type Obj []KV

// KV is one field of an Obj.
type KV struct {
	K string
	V any
}

// MarshalJSON writes the fields in order.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.K)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.V)
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

// Workspace is one case's workspace: sub/ (a directory), file (a regular file) and escape (a symlink to a
// directory outside).
type Workspace struct {
	Dir     string // as given to the engine
	Real    string // Dir with symlinks resolved
	Outside string // the directory escape points to, resolved
}

// NewWorkspace creates a case's workspace in a temporary directory of t.
func NewWorkspace(t *testing.T) *Workspace {
	t.Helper()
	w := &Workspace{Dir: t.TempDir()}
	var err error
	if w.Real, err = filepath.EvalSymlinks(w.Dir); err != nil {
		t.Fatal(err)
	}
	if w.Outside, err = filepath.EvalSymlinks(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Mkdir(filepath.Join(w.Dir, "sub"), 0o755),
		os.WriteFile(filepath.Join(w.Dir, "file"), []byte("x"), 0o644),
		os.Symlink(w.Outside, filepath.Join(w.Dir, "escape")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// Case is one call of a tool and the outcome the contract fixes for it.
type Case struct {
	Name    string
	Params  func(w *Workspace) map[string]any
	Want    func(w *Workspace) any                // an Obj (JSON result) or a string (text result)
	Err     *runtime.ToolError                    // a raised error instead of a result
	ErrFn   func(w *Workspace) *runtime.ToolError // Err, for an error that names the workspace
	ErrType string                                // only the error type is part of the contract
	MaxTime time.Duration                         // the call must return within this
	Gap     string                                // a known gap in the spec language: the case documents upstream and is skipped
	Linked  bool                                  // the engine gets the workspace through a symlink (w.Dir is the link)
	Opts    []runtime.Option
	// Check replaces Want for results with parts no contract can fix in advance (pids, shell ids); eng is
	// the engine of the call, for follow-up calls.
	Check func(t *testing.T, eng *runtime.Engine, w *Workspace, got json.RawMessage)
}

// P is the parameters {"command": command} plus the key/value pairs kvs.
func P(command string, kvs ...any) map[string]any {
	m := map[string]any{"command": command}
	for i := 0; i+1 < len(kvs); i += 2 {
		m[kvs[i].(string)] = kvs[i+1]
	}
	return m
}

// Cmd is Params that pass only the command.
func Cmd(command string) func(*Workspace) map[string]any {
	return func(*Workspace) map[string]any { return P(command) }
}

// CmdWith is Params that pass the command and the key/value pairs kvs.
func CmdWith(command string, kvs ...any) func(*Workspace) map[string]any {
	return func(*Workspace) map[string]any { return P(command, kvs...) }
}

// Fixed is a Want that does not depend on the workspace.
func Fixed(v any) func(*Workspace) any { return func(*Workspace) any { return v } }

// Run runs each case as a parallel subtest of t: a call of tool on an engine of the built-in variant id.
func Run(t *testing.T, id, tool string, cases []Case) {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			if tc.Gap != "" {
				t.Skip("known gap: " + tc.Gap)
			}
			w := NewWorkspace(t)
			if tc.Linked {
				link := filepath.Join(t.TempDir(), "link")
				if err := os.Symlink(w.Dir, link); err != nil {
					t.Fatal(err)
				}
				w.Dir = link
			}
			eng, err := runtime.New(v, append([]runtime.Option{runtime.WithWorkspace(w.Dir)}, tc.Opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			params, err := json.Marshal(tc.Params(w))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			res, err := eng.Call(ctx, tool, params)
			elapsed := time.Since(start)
			if tc.MaxTime > 0 && elapsed > tc.MaxTime {
				t.Errorf("call took %v, want at most %v", elapsed, tc.MaxTime)
			}
			if tc.ErrFn != nil {
				tc.Err = tc.ErrFn(w)
			}
			if tc.Err != nil || tc.ErrType != "" {
				var te *runtime.ToolError
				if !errors.As(err, &te) {
					t.Fatalf("want a raised error, got result %s, err %v", Short(string(res)), err)
				}
				if tc.ErrType != "" && te.Type != tc.ErrType {
					t.Errorf("error type %q, want %q (message %q)", te.Type, tc.ErrType, te.Message)
				}
				if tc.Err != nil && (te.Type != tc.Err.Type || te.Message != tc.Err.Message) {
					t.Errorf("error\n got %s: %q\nwant %s: %q", te.Type, te.Message, tc.Err.Type, tc.Err.Message)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if tc.Check != nil {
				tc.Check(t, eng, w, res)
				return
			}
			Compare(t, res, tc.Want(w))
		})
	}
}

// Compare checks a result against the contract: a text exactly, an object token by token (field order
// included).
func Compare(t *testing.T, got json.RawMessage, want any) {
	t.Helper()
	if s, ok := want.(string); ok {
		var text string
		if err := json.Unmarshal(got, &text); err != nil {
			t.Fatalf("result is not a JSON string: %s", Short(string(got)))
		}
		if text != s {
			t.Errorf("text differs at byte %d\n got %s\nwant %s", FirstDiff(text, s), Short(Quote(text)), Short(Quote(s)))
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
			t.Errorf("result differs at token %d\n got %s\nwant %s", i, Short(string(got)), Short(string(wantJSON)))
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
			t.Fatalf("invalid JSON %s: %v", Short(string(data)), err)
		}
		out = append(out, tok)
	}
}

// FirstDiff is the index of the first byte at which a and b differ (the shorter length if one is a
// prefix of the other).
func FirstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// Quote is s as a Go string literal, for failures.
func Quote(s string) string { return fmt.Sprintf("%q", s) }

// Short keeps long texts readable in failures.
func Short(s string) string {
	if len(s) <= 400 {
		return s
	}
	return fmt.Sprintf("%s ...(%d bytes)... %s", s[:200], len(s)-400, s[len(s)-200:])
}
