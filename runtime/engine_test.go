package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// textSpec is a small text tool: every feature the generic tests need, in a spec of their own.
const textSpec = `
id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 300ms}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: number, role: timeout}
      - {name: cwd, type: string, role: workdir}
      - {name: env, type: object, role: env}
    checks:
      - {not_blank: command, fail: {type: ValueError, message: "Empty command not allowed"}}
      - {timeout: true}
      - {workdir: true}
    timeout: {unit: s, default: 5, min: 0, max: 60, out_of_range: fail, expiry: kill,
              fail: {type: ValueError, message: "timeout {{pynum .Timeout}} not in {{.Min}}..{{.Max}}"}}
    workdir:
      resolve_symlinks: true
      confine: {type: PermissionError, message: "outside: {{.Path}}"}
      must_be_dir: {type: FileNotFoundError, message: "not a directory: {{.Resolved}}"}
    output:
      decode: replace
      truncate: {unit: bytes, limit: 10, keep: head, marker: "[+{{.Elided}}]"}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}|{{.Stderr}}|{{.ExitCode}}"}
        timeout: {text: "timeout|{{.Stdout}}|{{.ExitCode}}"}
`

// parseSpec is the variant of an inline test spec.
func parseSpec(t testing.TB, yaml string) *spec.Variant {
	t.Helper()
	v, err := spec.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newEngine(t *testing.T, yaml string, opts ...runtime.Option) (*runtime.Engine, string) {
	t.Helper()
	ws := t.TempDir()
	eng, err := runtime.New(parseSpec(t, yaml), append([]runtime.Option{runtime.WithWorkspace(ws)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, ws
}

func callText(t *testing.T, eng *runtime.Engine, params string) (string, error) {
	t.Helper()
	res, err := eng.Call(bounded(t), "bash", json.RawMessage(params))
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(res, &s); err != nil {
		t.Fatalf("text result is not a JSON string: %s", res)
	}
	return s, nil
}

func TestEngineText(t *testing.T) {
	eng, ws := newEngine(t, textSpec)
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, params, want, errType, errMsg string
	}{
		{name: "stdout", params: `{"command":"echo hi"}`, want: "hi\n||0"},
		{name: "stderr", params: `{"command":"echo oops >&2; exit 3"}`, want: "|oops\n|3"},
		{name: "limit", params: `{"command":"printf 0123456789"}`, want: "0123456789||0"},
		{name: "limit+1", params: `{"command":"printf 0123456789A"}`, want: "0123456789[+1]||0"},
		{name: "split multibyte", params: `{"command":"printf '012345678\\342\\202\\254'"}`, want: "012345678\ufffd[+2]||0"},
		{name: "invalid utf8", params: `{"command":"printf '\\377\\376'"}`, want: "\ufffd\ufffd||0"},
		{name: "stdin is closed", params: `{"command":"cat; echo done"}`, want: "done\n||0"},
		{name: "env merged", params: `{"command":"printf \"$AB_X\"","env":{"AB_X":"y"}}`, want: "y||0"},
		{name: "signal", params: `{"command":"kill -TERM $$"}`, want: "||-15"},
		{name: "relative cwd", params: `{"command":"basename \"$PWD\"","cwd":"sub"}`, want: "sub\n||0"},
		{name: "empty command", params: `{"command":"  "}`, errType: "ValueError", errMsg: "Empty command not allowed"},
		{name: "missing command", params: `{}`, errType: "ValueError", errMsg: "Empty command not allowed"},
		{name: "wrong type", params: `{"command":1}`, errType: "ValidationError", errMsg: "invalid parameter command: must be a string"},
		{name: "not an object", params: `[1]`, errType: "ValidationError", errMsg: "invalid parameter (params): must be a JSON object"},
		{name: "timeout out of range", params: `{"command":"true","timeout":61.5}`, errType: "ValueError", errMsg: "timeout 61.5 not in 0..60"},
		{name: "outside", params: `{"command":"true","cwd":"/"}`, errType: "PermissionError", errMsg: "outside: /"},
		{name: "parent", params: `{"command":"true","cwd":".."}`, errType: "PermissionError", errMsg: "outside: .."},
		{name: "parent of a child", params: `{"command":"true","cwd":"sub/../.."}`, errType: "PermissionError", errMsg: "outside: sub/../.."},
		{name: "symlink escape", params: `{"command":"true","cwd":"escape"}`, errType: "PermissionError", errMsg: "outside: escape"},
		{name: "missing dir", params: `{"command":"true","cwd":"nope"}`, errType: "FileNotFoundError", errMsg: "not a directory: " + filepath.Join(ws, "nope")},
		{name: "regular file", params: `{"command":"true","cwd":"file"}`, errType: "FileNotFoundError", errMsg: "not a directory: " + filepath.Join(ws, "file")},
		{name: "zero timeout expires", params: `{"command":"sleep 5","timeout":0}`, want: "timeout||-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := callText(t, eng, tt.params)
			if tt.errType != "" {
				var te *runtime.ToolError
				if !errors.As(err, &te) || te.Type != tt.errType || te.Message != tt.errMsg {
					t.Fatalf("got %q, %v; want %s: %s", got, err, tt.errType, tt.errMsg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// A background grandchild holding the pipes must not hold the call: the group dies when the shell exits.
func TestBackgroundChildDoesNotHang(t *testing.T) {
	eng, _ := newEngine(t, textSpec)
	start := time.Now()
	got, err := callText(t, eng, `{"command":"sleep 30 & echo $!; echo hi","timeout":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Fatalf("took %v", el)
	}
	pidText, rest, _ := strings.Cut(got, "\n")
	if rest != "hi\n||0" {
		t.Fatalf("got %q", got)
	}
	pid, _ := strconv.Atoi(pidText)
	waitGone(t, pid)
}

// A timeout kills the whole group and keeps the partial output.
func TestTimeoutKillsGroup(t *testing.T) {
	eng, _ := newEngine(t, textSpec)
	start := time.Now()
	got, err := callText(t, eng, `{"command":"sleep 30 & echo $!; sleep 30","timeout":0.5}`)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Fatalf("took %v", el)
	}
	if !strings.HasPrefix(got, "timeout|") || !strings.HasSuffix(got, "\n|-9") {
		t.Fatalf("got %q", got)
	}
	pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, "timeout|"), "\n|-9"))
	waitGone(t, pid)
}

// An escaped process (own session) holding stdout delays the call by the grace period only.
func TestEscapedHolderBoundedByGrace(t *testing.T) {
	eng, _ := newEngine(t, textSpec)
	start := time.Now()
	// The escaped process writes its pid to a file (its stdout stays the pipe it holds open); the shell
	// waits for the file, so the pid is known whatever the machine's load.
	got, err := callText(t, eng, `{"command":"setsid sh -c 'echo $$ > pid; exec sleep 30' & while [ ! -s pid ]; do sleep 0.01; done; cat pid; echo hi","timeout":5}`)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("took %v", el)
	}
	pidText, _, _ := strings.Cut(got, "\n")
	if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 {
		// The escaped process is ours (the test started it): end it by its pid.
		p, _ := os.FindProcess(pid)
		_ = p.Kill()
		waitGone(t, pid)
	} else {
		t.Fatalf("no pid in %q", got)
	}
}

func TestCancel(t *testing.T) {
	eng, _ := newEngine(t, textSpec)
	ctx, cancel := context.WithCancel(bounded(t))
	done := make(chan error, 1)
	go func() {
		_, err := eng.Call(ctx, "bash", json.RawMessage(`{"command":"sleep 30"}`))
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not end the call")
	}
}

// waitGone waits (bounded) until /proc no longer shows pid as a live process.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// A zombie awaiting its reaper is gone for our purposes only if it is not ours; report state Z too.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: the kernel offers no event for another's exit
	}
	t.Fatalf("process %d still alive", pid)
}

// callBound bounds every call and wait of these tests: a test that waits for a process fails after it
// rather than hanging (a timeout unit read as seconds instead of milliseconds waits 1000x longer).
const callBound = 30 * time.Second

// bounded returns a context that ends with the test or after callBound.
func bounded(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), callBound)
	t.Cleanup(cancel)
	return ctx
}
